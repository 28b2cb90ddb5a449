import { and, arrayOverlaps, asc, desc, eq, gt, gte, inArray, isNotNull, isNull, lte, type SQL } from "drizzle-orm";
import type { GpuTrackingDatum, GpuTrackingDatumMod, Reservation, ReservationStatus } from "@/lib/contract/reservations";
import type { Database } from "../client";
import { gpuTracking, reservations, vms } from "../schema";
import { gpusOf } from "./quotas";

const r = reservations;

/** The status a reservation has at `now`; the status filter and the seed agree on it. */
export function statusCondition(status: ReservationStatus, now: Date): SQL {
  switch (status) {
    case "cancelled":
      return isNotNull(r.cancelledAt);
    case "pending":
      return and(isNull(r.cancelledAt), gt(r.contractStartDate, now)) as SQL;
    case "expired":
      return and(isNull(r.cancelledAt), lte(r.contractEndDate, now)) as SQL;
    case "effective":
      return and(isNull(r.cancelledAt), lte(r.contractStartDate, now), gt(r.contractEndDate, now)) as SQL;
  }
}

type ReservationRow = typeof reservations.$inferSelect;

/** The reservation in the reference's shape; its VMs and used GPUs are the ones that still exist. */
async function toReservations(db: Database, orgId: string, rows: ReservationRow[]): Promise<Reservation[]> {
  const vmIds = [...new Set(rows.flatMap((row) => row.vmIds))];
  const live = vmIds.length
    ? await db.select({ id: vms.id, type: vms.type }).from(vms).where(and(eq(vms.organizationId, orgId), inArray(vms.id, vmIds)))
    : [];
  const gpus = new Map(live.map((vm) => [vm.id, gpusOf(vm.type)]));
  const iso = (d: Date | null) => (d ? d.toISOString() : "");
  return rows.map((row) => {
    const running = row.vmIds.filter((id) => gpus.has(id));
    const used = running.reduce((sum, id) => sum + (gpus.get(id)?.productLine === row.productLine ? (gpus.get(id)?.gpus ?? 0) : 0), 0);
    return {
      id: row.id,
      reservation_type: row.reservationType,
      product_line: row.productLine,
      duration: row.duration,
      quantity: row.quantity,
      used_quantity: Math.min(row.quantity, used),
      locations: row.locations,
      projects: row.projectIds,
      contract_start_date: iso(row.contractStartDate),
      contract_end_date: iso(row.contractEndDate),
      delivery_deadline: iso(row.deliveryDeadline),
      date_delivered: iso(row.dateDelivered),
      vm_ids: running,
      price: row.price,
    };
  });
}

export async function listReservations(db: Database, orgId: string, status: ReservationStatus | undefined, now = new Date()): Promise<Reservation[]> {
  const rows = await db
    .select()
    .from(r)
    .where(and(eq(r.organizationId, orgId), status ? statusCondition(status, now) : undefined))
    .orderBy(desc(r.contractStartDate), asc(r.id));
  return toReservations(db, orgId, rows);
}

export async function findReservation(db: Database, orgId: string, id: string): Promise<Reservation | null> {
  const rows = await db
    .select()
    .from(r)
    .where(and(eq(r.organizationId, orgId), eq(r.id, id)));
  return (await toReservations(db, orgId, rows))[0] ?? null;
}

export interface TrackingFilter {
  productLines?: string[];
  regions?: string[];
}

function trackingWhere(orgId: string, f: TrackingFilter, ...more: Array<SQL | undefined>) {
  return and(
    eq(gpuTracking.organizationId, orgId),
    f.productLines?.length ? inArray(gpuTracking.productLine, f.productLines) : undefined,
    f.regions?.length ? inArray(gpuTracking.region, f.regions) : undefined,
    ...more,
  );
}

export async function gpuTrackingSeries(db: Database, orgId: string, f: TrackingFilter & { start: Date; end: Date }): Promise<GpuTrackingDatum[]> {
  const rows = await db
    .select()
    .from(gpuTracking)
    .where(trackingWhere(orgId, f, gte(gpuTracking.eventTime, f.start), lte(gpuTracking.eventTime, f.end)))
    .orderBy(asc(gpuTracking.eventTime), asc(gpuTracking.productLine), asc(gpuTracking.region));
  return rows.map((row) => ({
    event_time: row.eventTime.toISOString(),
    global_capacity: row.globalCapacity,
    gpu_usage: row.gpuUsage,
    on_demand_count: row.onDemandCount,
    organization_id: row.organizationId,
    price: Number(row.price),
    product_line: row.productLine,
    region: row.region,
    regional_capacity: row.regionalCapacity,
  }));
}

/** The newest sample of each product line and region, and the effective reservations behind them. */
export async function latestGpuTracking(
  db: Database,
  orgId: string,
  f: TrackingFilter,
  now = new Date(),
): Promise<{ data: GpuTrackingDatumMod[]; reservationIds: string[] }> {
  const rows = await db
    .selectDistinctOn([gpuTracking.productLine, gpuTracking.region])
    .from(gpuTracking)
    .where(trackingWhere(orgId, f, lte(gpuTracking.eventTime, now)))
    .orderBy(asc(gpuTracking.productLine), asc(gpuTracking.region), desc(gpuTracking.eventTime));
  const effective = await db
    .select({ id: r.id })
    .from(r)
    .where(
      and(
        eq(r.organizationId, orgId),
        statusCondition("effective", now),
        f.productLines?.length ? inArray(r.productLine, f.productLines) : undefined,
        f.regions?.length ? arrayOverlaps(r.locations, f.regions) : undefined,
      ),
    )
    .orderBy(asc(r.id));
  return {
    data: rows.map((row) => ({
      event_time: row.eventTime.toISOString(),
      global_reservation_capacity: row.globalCapacity,
      organization_id: row.organizationId,
      overage_count: row.onDemandCount,
      price: Number(row.price),
      product_line: row.productLine,
      region: row.region,
      regional_reservation_capacity: row.regionalCapacity,
      running_compute_unit_count: row.gpuUsage,
    })),
    reservationIds: effective.map((e) => e.id),
  };
}
