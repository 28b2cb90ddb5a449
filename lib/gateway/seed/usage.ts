import { eq, sql } from "drizzle-orm";
import type { Database } from "../store/client";
import { orgQuotas, projects, usageRecords } from "../store/schema";
import { DEMO_LOCATIONS } from "./compute";
import { noPause, type Pace } from "./pace";
import type { Rng } from "./random";
import type { SeededReservation } from "./reservations";

const DAY = 86_400_000;

/**
 * Rows per insert. The store may be PGlite, whose statements run on the server's one thread: a
 * statement of this size holds it for about 20 ms, not the second 8,000 rows took, so
 * pages served while the demo is written are not held up behind it (`npm run bench`, first page
 * after a fresh start).
 */
const USAGE_BATCH_ROWS = 1_000;
/** Days whose sums one statement makes, once every row is in. */
const SUM_DAYS_PER_STATEMENT = 5;

/** On-demand price per GPU-hour, decimal strings. */
export const ON_DEMAND_GPU_PRICE: Record<string, string> = { h100: "2.4900", h200: "3.2900", a100: "1.7900", l40s: "0.9900" };

/** The metered products: GPU-hours by VM type, storage in GiB-months, egress in GB. */
const PRODUCTS = [
  { resourceType: "h100-80gb-sxm-ib.8x", productLine: "h100", metric: "gpu-hours", gpus: 8 },
  { resourceType: "h200-141gb-sxm-ib.8x", productLine: "h200", metric: "gpu-hours", gpus: 8 },
  { resourceType: "a100-80gb-sxm-ib.8x", productLine: "a100", metric: "gpu-hours", gpus: 8 },
  { resourceType: "l40s-48gb.4x", productLine: "l40s", metric: "gpu-hours", gpus: 4 },
  { resourceType: "persistent-ssd", productLine: "persistent-ssd", metric: "gib-months", gpus: 0 },
  { resourceType: "network-egress", productLine: "network-egress", metric: "gb", gpus: 0 },
] as const;

const UNIT_PRICE: Record<string, string> = {
  ...ON_DEMAND_GPU_PRICE,
  "persistent-ssd": "0.0700",
  "network-egress": "0.0100",
};

export const DEMO_REGIONS = [...new Set(DEMO_LOCATIONS.map((l) => l.region))];

/** How heavily each demo project uses each product line (0..1), so the projects look different. */
const INTENSITY: Record<string, Partial<Record<string, number>>> = {
  "llm-training": { h100: 1, h200: 0.8, a100: 0.3 },
  "inference-prod": { l40s: 1, h100: 0.3, "network-egress": 1 },
  "research-sandbox": { a100: 0.6, l40s: 0.4 },
  "data-pipeline": { "persistent-ssd": 1, "network-egress": 0.6 },
};

/** A metered resource: one per project, product and region. */
interface Resource {
  i: number;
  project_id: string;
  project_name: string;
  region: string;
  resource_type: string;
  product_line: string;
  resource_id: string;
  resource_name: string;
  billable_metric: string;
}

/** [resource index, usage date, quantity, unit price, reservation id or null] */
type Day = [number, string, string, string, string | null];

/**
 * Thousands of rows per statement as two JSON parameters (the resources once,
 * the days as short arrays): far quicker on PGlite than bound values.
 */
async function insertUsage(db: Database, organizationId: string, resources: Resource[], days: Day[]) {
  await db.execute(sql`
    insert into ${usageRecords} (organization_id, project_id, project_name, usage_date, region, resource_type, product_line,
      resource_id, resource_name, billable_metric, quantity, unit_price, reservation_id)
    select ${organizationId}, r.project_id, r.project_name, (d->>1)::date, r.region, r.resource_type, r.product_line,
      r.resource_id, r.resource_name, r.billable_metric, (d->>2)::numeric, (d->>3)::numeric, d->>4
    from json_array_elements(${JSON.stringify(days)}::json) as d
    join json_to_recordset(${JSON.stringify(resources)}::json) as r(i int, project_id text, project_name text, region text,
      resource_type text, product_line text, resource_id text, resource_name text, billable_metric text) on r.i = (d->>0)::int`);
}

/**
 * 180 days of daily usage for every project × product × region of an
 * organization. Usage inside an effective reservation (its product line,
 * region, projects and contract) is billed at the reserved price.
 */
export async function seedUsage(
  db: Database,
  r: Rng,
  input: { organizationId: string; now: Date; days?: number; regions?: readonly string[]; reservations: SeededReservation[]; pace?: Pace },
) {
  const { organizationId, now, reservations, pace = noPause } = input;
  const days = input.days ?? 180;
  const regions = input.regions ?? DEMO_REGIONS;
  const orgProjects = await db.select({ id: projects.id, name: projects.name }).from(projects).where(eq(projects.organizationId, organizationId));
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const resources: Resource[] = [];
  const dates = new Set<string>();
  let batch: Day[] = [];
  const flush = async () => {
    if (batch.length) await insertUsage(db, organizationId, resources, batch);
    batch = [];
    await pace();
  };
  // The insert trigger sums and renders every day a statement touches, and each batch touches all
  // of them: with it on, each day would be summed again for every batch. Off within the seed's own
  // transaction (undone with it if the seed fails), then each day is summed once at the end.
  await db.execute(sql`alter table ${usageRecords} disable trigger usage_daily_insert`);
  for (const project of orgProjects.sort((a, b) => a.name.localeCompare(b.name))) {
    for (const product of PRODUCTS) {
      for (const region of regions) {
        const intensity = (INTENSITY[project.name]?.[product.productLine] ?? 0.08) * (0.4 + r.next() * 0.6);
        const resource: Resource = {
          i: resources.length,
          project_id: project.id,
          project_name: project.name,
          region,
          resource_type: product.resourceType,
          product_line: product.productLine,
          resource_id: r.uuid(),
          resource_name: `${project.name}-${product.productLine}-${region}`,
          billable_metric: product.metric,
        };
        resources.push(resource);
        const baseGib = 200 + Math.round(r.next() * 8000 * intensity);
        for (let d = days - 1; d >= 0; d--) {
          const date = new Date(today - d * DAY);
          const weekday = date.getUTCDay() % 6 === 0 ? 0.6 : 1;
          const noise = 0.8 + r.next() * 0.4;
          let quantity: number;
          if (product.gpus > 0) quantity = product.gpus * 24 * Math.min(1, intensity * weekday * noise);
          else if (product.metric === "gib-months") quantity = (baseGib * (1 + (days - d) / (days * 2))) / 30;
          else quantity = 5 + 2000 * intensity * weekday * noise;
          const reservation = reservations.find(
            (x) => x.productLine === product.productLine && x.region === region && x.projectIds.includes(project.id) && x.start <= date && date < x.end,
          );
          const price = reservation ? reservation.price : (UNIT_PRICE[product.productLine] ?? "1.0000");
          const day = date.toISOString().slice(0, 10);
          dates.add(day);
          batch.push([resource.i, day, quantity.toFixed(6), price, reservation?.id ?? null]);
          if (batch.length >= USAGE_BATCH_ROWS) await flush();
        }
      }
    }
  }
  await flush();
  await db.execute(sql`alter table ${usageRecords} enable trigger usage_daily_insert`);
  const summed = [...dates].sort();
  for (let i = 0; i < summed.length; i += SUM_DAYS_PER_STATEMENT) {
    const chunk = summed.slice(i, i + SUM_DAYS_PER_STATEMENT);
    await db.execute(sql`select usage_daily_resum(array_fill(${organizationId}::text, array[${chunk.length}::int]), ${`{${chunk.join(",")}}`}::date[])`);
    await pace();
  }
}

/** The maxima granted to the demo organization; use is counted live. */
export async function seedQuotas(db: Database, organizationId: string) {
  const maxima: Record<string, number> = {
    ORG_QUOTAS_MAXIMUM_PROJECTS: 20,
    ORG_QUOTAS_MAXIMUM_USERS: 25,
    ORG_QUOTAS_MAXIMUM_VMS: 40,
    ORG_QUOTAS_MAXIMUM_H100_GPUS: 128,
    ORG_QUOTAS_MAXIMUM_H200_GPUS: 96,
    ORG_QUOTAS_MAXIMUM_A100_GPUS: 96,
    ORG_QUOTAS_MAXIMUM_L40S_GPUS: 64,
    ORG_QUOTAS_MAXIMUM_DISK_GIB: 200_000,
  };
  await db.insert(orgQuotas).values(Object.entries(maxima).map(([type, max]) => ({ organizationId, type, max })));
}
