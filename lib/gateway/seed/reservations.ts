import { eq } from "drizzle-orm";
import type { Database } from "../store/client";
import { gpusOf } from "../store/queries/quotas";
import { gpuTracking, reservations, vms } from "../store/schema";
import { DEMO_LOCATIONS } from "./compute";
import type { Rng } from "./random";
import { ON_DEMAND_GPU_PRICE } from "./usage";

const DAY = 86_400_000;

/** Reserved price per GPU-hour: below on demand, as a commitment earns. */
const RESERVED_PRICE = { h100: "1.9900", h200: "2.6900", a100: "1.3900", l40s: "0.7400" } as const;
const reservedPrice = (line: string): string => (RESERVED_PRICE as Record<string, string>)[line] ?? "1.0000";

export interface SeededReservation {
  id: string;
  productLine: string;
  region: string;
  projectIds: string[];
  start: Date;
  end: Date;
  price: string;
}

const regionOf = new Map(DEMO_LOCATIONS.map((l) => [l.id, l.region]));
/** Whole days at 09:00 UTC, as contracts are written. */
const nine = (t: number) => new Date(Math.floor(t / DAY) * DAY + 9 * 3_600_000);
const months = (from: Date, n: number) => new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + n, from.getUTCDate(), 9));

/**
 * Reservations in every state: effective ones covering the organization's GPU
 * VMs (grouped by product line and region), and a pending, an expired and a
 * cancelled one. Returns the effective ones, which usage is billed against.
 */
export async function seedReservations(db: Database, r: Rng, input: { organizationId: string; now: Date; extra: boolean }): Promise<SeededReservation[]> {
  const { organizationId, now } = input;
  const orgVms = await db.select({ id: vms.id, type: vms.type, location: vms.location, projectId: vms.projectId }).from(vms).where(eq(vms.organizationId, organizationId));
  const groups = new Map<string, { productLine: string; region: string; gpus: number; vmIds: string[]; projectIds: Set<string> }>();
  for (const vm of orgVms) {
    const { productLine, gpus } = gpusOf(vm.type);
    const region = regionOf.get(vm.location) ?? vm.location;
    const key = `${productLine}|${region}`;
    const group = groups.get(key) ?? { productLine, region, gpus: 0, vmIds: [], projectIds: new Set<string>() };
    group.gpus += gpus;
    group.vmIds.push(vm.id);
    group.projectIds.add(vm.projectId);
    groups.set(key, group);
  }
  const biggest = [...groups.values()].sort((a, b) => b.gpus - a.gpus || a.productLine.localeCompare(b.productLine)).slice(0, input.extra ? 3 : 1);

  const rows: Array<typeof reservations.$inferInsert> = [];
  const effective: SeededReservation[] = [];
  for (const g of biggest) {
    const start = nine(now.getTime() - r.int(90, 200) * DAY);
    const end = months(start, 12);
    const id = r.uuid();
    const price = reservedPrice(g.productLine);
    rows.push({
      id,
      organizationId,
      reservationType: "RIPA",
      productLine: g.productLine,
      duration: 12,
      quantity: Math.ceil((g.gpus + 8) / 8) * 8,
      locations: [g.region],
      projectIds: [...g.projectIds].sort(),
      vmIds: g.vmIds,
      contractStartDate: start,
      contractEndDate: end,
      deliveryDeadline: new Date(start.getTime() - 14 * DAY),
      dateDelivered: new Date(start.getTime() - r.int(2, 10) * DAY),
      price,
    });
    effective.push({ id, productLine: g.productLine, region: g.region, projectIds: [...g.projectIds], start, end, price });
  }
  if (input.extra) {
    const projects = [...new Set(orgVms.map((v) => v.projectId))].sort();
    const pendingStart = nine(now.getTime() + 30 * DAY);
    const expiredEnd = nine(now.getTime() - 40 * DAY);
    const expiredStart = months(expiredEnd, -6);
    const cancelledStart = nine(now.getTime() + 60 * DAY);
    rows.push(
      {
        id: r.uuid(),
        organizationId,
        reservationType: "RIPA",
        productLine: "h200",
        duration: 24,
        quantity: 64,
        locations: ["eu-north1"],
        projectIds: projects.slice(0, 1),
        contractStartDate: pendingStart,
        contractEndDate: months(pendingStart, 24),
        deliveryDeadline: new Date(pendingStart.getTime() - 7 * DAY),
        price: RESERVED_PRICE.h200,
      },
      {
        id: r.uuid(),
        organizationId,
        reservationType: "CAPACITY_BLOCK",
        productLine: "a100",
        duration: 6,
        quantity: 32,
        locations: ["us-west1"],
        projectIds: projects.slice(0, 2),
        contractStartDate: expiredStart,
        contractEndDate: expiredEnd,
        deliveryDeadline: new Date(expiredStart.getTime() - 14 * DAY),
        dateDelivered: new Date(expiredStart.getTime() - 3 * DAY),
        price: RESERVED_PRICE.a100,
      },
      {
        id: r.uuid(),
        organizationId,
        reservationType: "RIPA",
        productLine: "l40s",
        duration: 12,
        quantity: 16,
        locations: ["eu-west2"],
        projectIds: projects.slice(1, 2),
        contractStartDate: cancelledStart,
        contractEndDate: months(cancelledStart, 12),
        deliveryDeadline: new Date(cancelledStart.getTime() - 14 * DAY),
        price: RESERVED_PRICE.l40s,
        cancelledAt: nine(now.getTime() - 5 * DAY),
      },
    );
  }
  if (rows.length) await db.insert(reservations).values(rows);
  await seedGpuTracking(db, r, organizationId, effective, rows, now);
  return effective;
}

/** A sample every 4 hours for 30 days per reserved product line and region: usage swings around the reservation. */
async function seedGpuTracking(
  db: Database,
  r: Rng,
  organizationId: string,
  effective: SeededReservation[],
  rows: Array<typeof reservations.$inferInsert>,
  now: Date,
) {
  const quantity = new Map(rows.map((row) => [row.id, row.quantity]));
  const global = new Map<string, number>();
  for (const e of effective) global.set(e.productLine, (global.get(e.productLine) ?? 0) + (quantity.get(e.id) ?? 0));
  const step = 4 * 3_600_000;
  const last = Math.floor(now.getTime() / step) * step;
  const samples: Array<typeof gpuTracking.$inferInsert> = [];
  for (const e of effective) {
    const capacity = quantity.get(e.id) ?? 0;
    for (let i = 179; i >= 0; i--) {
      const at = new Date(last - i * step);
      const hour = at.getUTCHours();
      const busy = hour >= 8 && hour <= 20 ? 0.95 : 0.7;
      const usage = Math.max(0, Math.round(capacity * (busy + (r.next() - 0.5) * 0.4)));
      samples.push({
        organizationId,
        eventTime: at,
        productLine: e.productLine,
        region: e.region,
        regionalCapacity: capacity,
        globalCapacity: global.get(e.productLine) ?? capacity,
        gpuUsage: usage,
        onDemandCount: Math.max(0, usage - capacity),
        price: ON_DEMAND_GPU_PRICE[e.productLine] ?? "1.0000",
      });
    }
  }
  if (samples.length) await db.insert(gpuTracking).values(samples);
}
