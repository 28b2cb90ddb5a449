import { and, asc, eq, gte, inArray, isNull, lte, max, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { BillingCostDatum } from "@/lib/contract/billing";
import type { CustomerProductProjectUsage, UsageOptions } from "@/lib/contract/usage";
import type { Database } from "../client";
import { projects, usageRecords } from "../schema";

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

/** The organization first: every query of this file is scoped to one. */
function where(orgId: string, f: UsageFilter, ...more: Array<SQL | undefined>): SQL | undefined {
  const list = (column: Parameters<typeof inArray>[0], values?: string[]) => (values?.length ? inArray(column, values) : undefined);
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

/** Usage summed per project, product, region and reservation, per day or per month (dated the 1st). */
export async function usageByPeriod(
  db: Database,
  orgId: string,
  f: UsageFilter,
  interval: "daily" | "monthly",
): Promise<CustomerProductProjectUsage[]> {
  const period =
    interval === "monthly" ? sql<string>`to_char(date_trunc('month', ${u.usageDate}), 'YYYY-MM-DD')` : sql<string>`to_char(${u.usageDate}, 'YYYY-MM-DD')`;
  const reservation = sql<string>`coalesce(${u.reservationId}, '')`;
  const rows = await db
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
    .where(where(orgId, f))
    .groupBy(period, u.projectId, u.resourceType, u.region, u.billableMetric, reservation)
    .orderBy(period, u.projectId, u.resourceType, u.region, reservation);
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

/** Daily spend per project, product and region; the unit price is the effective one of the day. */
export async function dailyCosts(db: Database, orgId: string, f: UsageFilter): Promise<{ data: BillingCostDatum[]; lastUpdated: Date | null }> {
  const day = sql<string>`to_char(${u.usageDate}, 'YYYY-MM-DD')`;
  const rows = await db
    .select({
      date: day,
      projectId: u.projectId,
      resourceType: u.resourceType,
      region: u.region,
      billableMetric: u.billableMetric,
      quantity: sql<string>`sum(${u.quantity})`,
      cost: sql<string>`sum(${u.cost})`,
      // One price all day is that price; a day partly under a reservation gets the effective price.
      unitPrice: sql<string>`case when min(${u.unitPrice}) = max(${u.unitPrice}) then min(${u.unitPrice})
        else round(sum(${u.cost}) / nullif(sum(${u.quantity}), 0), 6) end`,
    })
    .from(u)
    .where(where(orgId, f))
    .groupBy(day, u.projectId, u.resourceType, u.region, u.billableMetric)
    .orderBy(day, u.projectId, u.resourceType, u.region);
  const [updated] = await db.select({ at: max(u.recordedAt) }).from(u).where(where(orgId, f));
  return {
    data: rows.map((r) => ({
      billable_metric: r.billableMetric,
      cost: Number(r.cost),
      date: r.date,
      project_id: r.projectId,
      quantity: Number(r.quantity),
      region: r.region,
      resource_type: r.resourceType,
      unit_price: Number(r.unitPrice ?? 0),
    })),
    lastUpdated: updated?.at ?? null,
  };
}

/** The values that exist for each filter, and the first and last day of the data. */
export async function usageOptions(db: Database, orgId: string, f: UsageFilter): Promise<UsageOptions> {
  const agg = (column: AnyPgColumn) => sql<string[] | null>`array_agg(distinct ${column} order by ${column})`;
  const [row] = await db
    .select({
      projects: agg(u.projectId),
      resourceTypes: agg(u.resourceType),
      productLines: agg(u.productLine),
      regions: agg(u.region),
      first: sql<string | null>`to_char(min(${u.usageDate}), 'YYYY-MM-DD')`,
      last: sql<string | null>`to_char(max(${u.usageDate}), 'YYYY-MM-DD')`,
    })
    .from(u)
    .where(where(orgId, f));
  return {
    projects: row?.projects ?? [],
    resource_types: row?.resourceTypes ?? [],
    product_lines: row?.productLines ?? [],
    regions: row?.regions ?? [],
    start_date: row?.first ?? "",
    end_date: row?.last ?? "",
  };
}

export interface UsageLine {
  seq: number;
  usageDate: string;
  projectId: string;
  projectName: string;
  region: string;
  resourceType: string;
  productLine: string;
  resourceId: string;
  resourceName: string;
  billableMetric: string;
  quantity: string;
  unitPrice: string;
  cost: string;
}

/** Each column an export may hold: its text as the database writes it, and whether it is free text. */
const CSV_COLUMNS = {
  cost: { text: sql`${u.cost}::text`, free: false },
  metric: { text: sql`${u.billableMetric}`, free: true },
  product_line: { text: sql`${u.productLine}`, free: true },
  project_id: { text: sql`${u.projectId}`, free: true },
  project_name: { text: sql`coalesce(${projects.name}, ${u.projectName})`, free: true },
  quantity: { text: sql`${u.quantity}::text`, free: false },
  region: { text: sql`${u.region}`, free: true },
  resource_id: { text: sql`${u.resourceId}`, free: true },
  resource_name: { text: sql`${u.resourceName}`, free: true },
  resource_type: { text: sql`${u.resourceType}`, free: true },
  unit_price: { text: sql`${u.unitPrice}::text`, free: false },
  usage_date: { text: sql`to_char(${u.usageDate}, 'YYYY-MM-DD')`, free: false },
} as const;

export type UsageCsvColumn = keyof typeof CSV_COLUMNS;

/** What csv-stringify quotes: a field holding a comma, a quote or a line break. */
const NEEDS_QUOTES = sql.raw(`E'[",\\r\\n]'`);

/** A CSV line of the given fields, null as empty, ending in a newline. */
const joinLine = (fields: SQL[]) => sql`concat(${sql.join(fields, sql`, ',', `)}, E'\\n')`;

/** The line with every field as it is: what csv-stringify writes when no field needs quotes. */
function plainLine(columns: readonly UsageCsvColumn[]): SQL {
  return joinLine(columns.map((name) => CSV_COLUMNS[name].text));
}

/** The line as csv-stringify writes it: free text holding a comma, a quote or a line break quoted, quotes doubled. */
function quotedLine(columns: readonly UsageCsvColumn[]): SQL {
  return joinLine(
    columns.map((name) => {
      const { text, free } = CSV_COLUMNS[name];
      return free ? sql`case when ${text} ~ ${NEEDS_QUOTES} then '"' || replace(${text}, '"', '""') || '"' else ${text} end` : text;
    }),
  );
}

/**
 * Whether plain lines are already what csv-stringify writes: no field held a quote,
 * a carriage return, a comma or a newline, so every line has exactly its separators.
 */
function plainIsExact(text: string, lines: number, columns: number): boolean {
  if (text.includes('"') || text.includes("\r")) return false;
  const count = (ch: string) => {
    let n = 0;
    for (let at = text.indexOf(ch); at !== -1; at = text.indexOf(ch, at + 1)) n++;
    return n;
  };
  return count("\n") === lines && count(",") === lines * (columns - 1);
}

interface CsvBatch {
  text: string | null;
  lines: number;
  lastDate: string | null;
  lastSeq: string | null;
}

/** One batch of lines after a position, as one string, with the position of its last line. */
async function csvBatch(db: Database, orgId: string, f: UsageFilter, line: SQL, batchSize: number, after: { date: string; seq: string } | null): Promise<CsvBatch | undefined> {
  const from = after ? sql`(${u.usageDate}, ${u.seq}) > (${after.date}::date, ${after.seq}::bigint)` : undefined;
  const batch = db
    .select({ seq: u.seq, day: sql<string>`${u.usageDate}`.as("day"), line: sql<string>`${line}`.as("line") })
    .from(u)
    .leftJoin(projects, and(eq(projects.id, u.projectId), eq(projects.organizationId, orgId)))
    .where(where(orgId, f, from))
    .orderBy(asc(u.usageDate), asc(u.seq))
    .limit(batchSize)
    .as("batch");
  const [found] = await db
    .select({
      text: sql<string | null>`string_agg(${batch.line}, '' order by ${batch.day}, ${batch.seq})`,
      lines: sql<number>`count(*)::int`,
      lastDate: sql<string | null>`to_char(max(${batch.day}), 'YYYY-MM-DD')`,
      lastSeq: sql<string | null>`(array_agg(${batch.seq} order by ${batch.day} desc, ${batch.seq} desc))[1]::text`,
    })
    .from(batch);
  return found;
}

/**
 * Resource-level usage as CSV lines (each ending in a newline) in (usage_date, seq)
 * order, written by the database: one string per batch of up to `batchSize` lines,
 * each batch starting after the last line of the one before. Reading thousands of
 * small values costs far more than reading one string of the same text (PGlite
 * parses every value of every row in JavaScript), so an export streams this rather
 * than usageLines. Lines are written plain, the cheap way; a batch in which some
 * field needed quotes is read again with quoting.
 */
export async function* usageCsv(
  db: Database,
  orgId: string,
  f: UsageFilter,
  columns: readonly UsageCsvColumn[],
  batchSize = 5000,
): AsyncGenerator<string> {
  const plain = plainLine(columns);
  const quoted = quotedLine(columns);
  let after: { date: string; seq: string } | null = null;
  for (;;) {
    let found = await csvBatch(db, orgId, f, plain, batchSize, after);
    if (found?.text && !plainIsExact(found.text, Number(found.lines), columns.length)) found = await csvBatch(db, orgId, f, quoted, batchSize, after);
    if (!found?.text || !found.lastDate || !found.lastSeq) return;
    yield found.text;
    if (Number(found.lines) < batchSize) return;
    after = { date: found.lastDate, seq: found.lastSeq };
  }
}

/**
 * Resource-level usage in (usage_date, seq) order, one batch per query: each
 * batch starts after the last row of the one before (keyset, no OFFSET), so an
 * export of any size holds one batch in memory at a time.
 */
export async function* usageLines(db: Database, orgId: string, f: UsageFilter, batchSize = 1000): AsyncGenerator<UsageLine[]> {
  let after: { date: string; seq: number } | null = null;
  for (;;) {
    const batch: UsageLine[] = await db
      .select({
        seq: u.seq,
        usageDate: sql<string>`to_char(${u.usageDate}, 'YYYY-MM-DD')`,
        projectId: u.projectId,
        // The current name of a project that still exists, else the name it had.
        projectName: sql<string>`coalesce(${projects.name}, ${u.projectName})`,
        region: u.region,
        resourceType: u.resourceType,
        productLine: u.productLine,
        resourceId: u.resourceId,
        resourceName: u.resourceName,
        billableMetric: u.billableMetric,
        quantity: u.quantity,
        unitPrice: u.unitPrice,
        cost: sql<string>`${u.cost}`,
      })
      .from(u)
      .leftJoin(projects, and(eq(projects.id, u.projectId), eq(projects.organizationId, orgId)))
      .where(where(orgId, f, after ? sql`(${u.usageDate}, ${u.seq}) > (${after.date}::date, ${after.seq})` : undefined))
      .orderBy(asc(u.usageDate), asc(u.seq))
      .limit(batchSize);
    if (batch.length > 0) yield batch;
    const last = batch.at(-1);
    if (!last || batch.length < batchSize) return;
    after = { date: last.usageDate, seq: last.seq };
  }
}
