import { and, eq, gte, inArray, isNull, lte, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { CustomerProductProjectUsage, UsageOptions } from "@/lib/contract/usage";
import { resultRows, type Database } from "../client";
import { projects, usageDaily, usageRecords } from "../schema";

/**
 * Usage selected and summed: from the rows (usage_records), or from their daily sums (usage_daily)
 * where the sums keep what a filter names. The days' rendered answers are in usage-days.ts, the
 * exports in usage-export.ts.
 */

export interface UsageFilter {
  startDate?: string;
  endDate?: string;
  projects?: string[];
  resources?: string[];
  resourceTypes?: string[];
  productLines?: string[];
  regions?: string[];
  /** Only usage billed on demand, outside any reservation. */
  withoutReservations?: boolean;
}

const u = usageRecords;

export type DateRange = Pick<UsageFilter, "startDate" | "endDate">;

/** A filter's list of values; none selects every row. */
const list = (column: Parameters<typeof inArray>[0], values?: string[]) => (values?.length ? inArray(column, values) : undefined);

/** The rows a filter selects, the organization first: every query of usage is scoped to one. */
export function usageWhere(orgId: string, f: UsageFilter, ...more: Array<SQL | undefined>): SQL | undefined {
  return and(
    eq(u.organizationId, orgId),
    f.startDate ? gte(u.usageDate, f.startDate) : undefined,
    f.endDate ? lte(u.usageDate, f.endDate) : undefined,
    list(u.projectId, f.projects),
    list(u.resourceId, f.resources),
    list(u.resourceType, f.resourceTypes),
    list(u.productLine, f.productLines),
    list(u.region, f.regions),
    f.withoutReservations ? isNull(u.reservationId) : undefined,
    ...more,
  );
}

const d = usageDaily;

/** The daily sums of the organization (usage_daily) a filter without resources or product lines selects. */
function whereDaily(orgId: string, f: Omit<UsageFilter, "resources" | "productLines">): SQL | undefined {
  return and(
    eq(d.organizationId, orgId),
    f.startDate ? gte(d.usageDate, f.startDate) : undefined,
    f.endDate ? lte(d.usageDate, f.endDate) : undefined,
    list(d.projectId, f.projects),
    list(d.resourceType, f.resourceTypes),
    list(d.region, f.regions),
    f.withoutReservations ? eq(d.reservationId, "") : undefined,
  );
}

/** Usage summed per period from the rows themselves: for filters the daily sums cannot answer (usageByPeriodBody). */
export function usageByPeriodQuery(db: Database, orgId: string, f: UsageFilter, interval: "daily" | "monthly") {
  const period =
    interval === "monthly" ? sql<string>`to_char(date_trunc('month', ${u.usageDate}), 'YYYY-MM-DD')` : sql<string>`to_char(${u.usageDate}, 'YYYY-MM-DD')`;
  const reservation = sql<string>`coalesce(${u.reservationId}, '')`;
  return db
    .select({
      date: period,
      projectId: u.projectId,
      resourceType: u.resourceType,
      region: u.region,
      billableMetric: u.billableMetric,
      reservationId: reservation,
      quantity: sql<string>`sum(${u.quantity})`,
    })
    .from(u)
    .where(usageWhere(orgId, f))
    .groupBy(period, u.projectId, u.resourceType, u.region, u.billableMetric, reservation)
    .orderBy(period, u.projectId, u.resourceType, u.region, reservation);
}

/** Usage summed per project, product, region and reservation, per day or per month (dated the 1st). */
export async function usageByPeriod(
  db: Database,
  orgId: string,
  f: UsageFilter,
  interval: "daily" | "monthly",
): Promise<CustomerProductProjectUsage[]> {
  const rows = await usageByPeriodQuery(db, orgId, f, interval);
  return rows.map((r) => ({
    billable_metric: r.billableMetric,
    date: r.date,
    project_id: r.projectId,
    quantity: Number(r.quantity),
    region: r.region,
    reservation_id: r.reservationId,
    resource_type: r.resourceType,
  }));
}

/**
 * The usage chart's answer, `{"items": [...]}`: usage summed per project, resource type, region,
 * metric and reservation, per day or per month (dated the 1st), summed from the daily sums by the
 * database when filtered by project, type, region or reservation, or monthly. Null when the
 * days' rendered points answer (daily over the whole organization: usageByPeriodBody joins them)
 * and when the filter names resources or product lines, which the sums do not keep.
 */
export function usageByPeriodBodyQuery(orgId: string, f: UsageFilter, interval: "daily" | "monthly"): SQL | null {
  if (f.resources?.length || f.productLines?.length || answeredByDays(f, interval)) return null;
  const period = interval === "monthly" ? sql`date_trunc('month', ${d.usageDate})` : sql`${d.usageDate}`;
  // json_agg of whole rows: the columns' names are the fields'.
  return sql`select coalesce(json_agg(t), '[]')::text as points from (
      select ${d.billableMetric} as billable_metric, to_char(${period}, 'YYYY-MM-DD') as date, ${d.projectId} as project_id,
        sum(${d.quantity}) as quantity, ${d.region} as region, ${d.reservationId} as reservation_id, ${d.resourceType} as resource_type
      from ${d}
      where ${whereDaily(orgId, f)}
      group by ${period}, ${d.projectId}, ${d.resourceType}, ${d.region}, ${d.billableMetric}, ${d.reservationId}
      order by ${period}, ${d.projectId}, ${d.resourceType}, ${d.region}, ${d.billableMetric}, ${d.reservationId}
    ) t`;
}

/** Daily usage of the whole organization: the days' rendered points answer it. */
export function answeredByDays(f: UsageFilter, interval: "daily" | "monthly"): boolean {
  return interval === "daily" && !f.resources?.length && !f.productLines?.length && !f.projects?.length && !f.resourceTypes?.length && !f.regions?.length && !f.withoutReservations;
}

/**
 * The values that exist for each filter in a selection, and the first and last day of its data:
 * from the daily sums, or from the rows for what the sums do not keep (resources, and a selection
 * by resource or product line).
 */
export async function usageOptions(db: Database, orgId: string, f: UsageFilter, { withResources = false } = {}): Promise<UsageOptions> {
  const fromRows = withResources || !!f.resources?.length || !!f.productLines?.length;
  const c = fromRows
    ? { table: u, where: usageWhere(orgId, f), projectId: u.projectId, projectName: u.projectName, usageDate: u.usageDate, resourceType: u.resourceType, productLine: u.productLine, region: u.region }
    : { table: d, where: whereDaily(orgId, f), projectId: d.projectId, projectName: d.projectName, usageDate: d.usageDate, resourceType: d.resourceType, productLine: d.productLine, region: d.region };
  // In code point order whatever the database's collation, as the days' options are merged (usage-days.ts).
  const agg = (column: AnyPgColumn) => sql`array_agg(distinct ${column} collate "C" order by ${column} collate "C")`;
  const [row] = resultRows<{ projects: string[] | null; resource_types: string[] | null; product_lines: string[] | null; regions: string[] | null; first: string | null; last: string | null; resources: string[] | null }>(
    await db.execute(sql`select ${agg(c.projectId)} as projects, ${agg(c.resourceType)} as resource_types, ${agg(c.productLine)} as product_lines, ${agg(c.region)} as regions,
        to_char(min(${c.usageDate}), 'YYYY-MM-DD') as first, to_char(max(${c.usageDate}), 'YYYY-MM-DD') as last,
        ${withResources ? agg(u.resourceId) : sql`null`} as resources
      from ${c.table} where ${c.where}`),
  );
  // Each project's name as the exports write it: its current name, else the one its latest day of usage
  // recorded (the greatest, when it was renamed that day, as each day's rendered options name it).
  const named = resultRows<{ id: string; name: string }>(
    await db.execute(sql`select distinct on (${c.projectId}) ${c.projectId} as id, coalesce(${projects.name}, ${c.projectName}) as name
      from ${c.table} left join ${projects} on ${projects.id} = ${c.projectId} and ${projects.organizationId} = ${orgId}
      where ${c.where} order by ${c.projectId}, ${c.usageDate} desc, ${c.projectName} desc`),
  );
  return {
    projects: row?.projects ?? [],
    project_names: Object.fromEntries(named.map((p) => [p.id, p.name])),
    resource_types: row?.resource_types ?? [],
    product_lines: row?.product_lines ?? [],
    regions: row?.regions ?? [],
    start_date: row?.first ?? "",
    end_date: row?.last ?? "",
    ...(withResources ? { resources: row?.resources ?? [] } : {}),
  };
}
