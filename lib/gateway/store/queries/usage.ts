import { createHash } from "node:crypto";
import { and, asc, eq, gte, inArray, isNull, lte, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type pg from "pg";
import type { CustomerProductProjectUsage, UsageOptions } from "@/lib/contract/usage";
import { copyCells, copySlot, csvCopy, csvLines, postgresPool, type CsvBatchReader, type CsvChunk, type CsvColumn } from "../../csv";
import type { ReadCache } from "@/lib/db/read-cache";
import { resultRows, type Database } from "../client";
import { projects, usageDaily, usageDayJson, usageRecords } from "../schema";

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

type DateRange = Pick<UsageFilter, "startDate" | "endDate">;

/** A filter's list of values; none selects every row. */
const list = (column: Parameters<typeof inArray>[0], values?: string[]) => (values?.length ? inArray(column, values) : undefined);

/** The organization first: every query of this file is scoped to one. */
function where(orgId: string, f: UsageFilter, ...more: Array<SQL | undefined>): SQL | undefined {
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

/** A usage row's project, when it still exists in the organization (its current name; else the row keeps the one it had). */
const sameProject = (orgId: string) => and(eq(projects.id, u.projectId), eq(projects.organizationId, orgId));
/** The exports' order of lines. */
const LINE_ORDER = [asc(u.usageDate), asc(u.seq)];

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
    .where(where(orgId, f))
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

const days = usageDayJson;

/** What usage_day_json renders of each day: the billing chart's points, the usage chart's, the filters' values. */
type DayKind = "billing" | "usage" | "options";

/** A range of days of one organization in usage_day_json. */
function daysIn(orgId: string, f: DateRange): SQL | undefined {
  return and(eq(days.organizationId, orgId), f.startDate ? gte(days.usageDate, f.startDate) : undefined, f.endDate ? lte(days.usageDate, f.endDate) : undefined);
}

/**
 * The days' rendered points of one kind, a row per day in date order, with each row's version
 * (`xmin`: a day rendered again is a new row). Read as rows and joined by the gateway, not by
 * string_agg: a day's points are one value of tens of kilobytes, and 90 of them read as rows
 * cost a fifth of one string_agg of them (3.5 MB, `npm run bench -- --only scale`, the charts row).
 */
export function dayPointsQuery(orgId: string, which: DateRange | string[], kind: DayKind): SQL {
  const points = days[kind];
  const where = Array.isArray(which) ? and(eq(days.organizationId, orgId), inArray(days.usageDate, which)) : daysIn(orgId, which);
  return sql`select to_char(${days.usageDate}, 'YYYY-MM-DD') as day, xmin::text as version, ${points} as points
    from ${days} where ${where} order by ${days.usageDate}`;
}

/** The days of the range, each with its row's version and the time it was last recorded, without their points. */
function dayVersionsQuery(orgId: string, f: DateRange): SQL {
  return sql`select to_char(${days.usageDate}, 'YYYY-MM-DD') as day, xmin::text as version,
      to_char(${days.recordedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as recorded_at
    from ${days} where ${daysIn(orgId, f)} order by ${days.usageDate}`;
}

/**
 * Days' points as UTF-8, kept in memory by store, organization, kind and day, each good while its
 * row's version is the one it was read at: a past day is rendered once and read by every chart
 * that shows it. The least recently used go first beyond `maxBytes`.
 */
export class RenderedDays {
  private readonly entries = new Map<string, { version: string; bytes: Buffer }>();
  private size = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string, version: string): Buffer | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return undefined;
    // Used now: to the back of the line.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.bytes;
  }

  set(key: string, version: string, bytes: Buffer): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.size -= old.bytes.length;
    }
    if (bytes.length > this.maxBytes) return;
    this.entries.set(key, { version, bytes });
    this.size += bytes.length;
    for (const [oldest, entry] of this.entries) {
      if (this.size <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.size -= entry.bytes.length;
    }
  }
}

/** Memory for rendered days, per store (64 MB: over a year of the charts of the 10 M-row organization of `npm run bench`). */
const RENDERED_DAYS_BYTES = 64 * 1024 * 1024;
const renderedDays = new WeakMap<object, RenderedDays>();

/** An answer's bytes in parts, as they are kept: sent one after another, never joined (see joinedDays). */
export interface BodyParts {
  parts: Uint8Array[];
  /** Their bytes in all. */
  length: number;
}

/** A day of a range as usage_day_json lists it: its row's version, and when it was last recorded. */
interface ListedDay {
  day: string;
  version: string;
  recorded_at: string;
}

/**
 * The days of a range, in date order, and each one's rendered text of one kind as UTF-8. The
 * days' versions are read first, and only the texts of days not in memory at their version after
 * them. A day rendered again between the two reads is given as read (the newer text).
 */
async function keptDays(db: Database, orgId: string, f: DateRange, kind: DayKind): Promise<{ listed: ListedDay[]; texts: Map<string, Buffer> }> {
  let memory = renderedDays.get(db);
  if (!memory) renderedDays.set(db, (memory = new RenderedDays(RENDERED_DAYS_BYTES)));
  const key = (day: string) => `${orgId}\n${kind}\n${day}`;
  const listed = resultRows<ListedDay>(await db.execute(dayVersionsQuery(orgId, f)));
  // The days' texts in hand before any is read (reading may push others out of memory).
  const texts = new Map<string, Buffer>();
  const missing: string[] = [];
  for (const row of listed) {
    const kept = memory.get(key(row.day), row.version);
    if (kept) texts.set(row.day, kept);
    else missing.push(row.day);
  }
  if (missing.length) {
    const rows = resultRows<{ day: string; version: string; points: string }>(await db.execute(dayPointsQuery(orgId, missing, kind)));
    for (const row of rows) {
      const bytes = Buffer.from(row.points);
      texts.set(row.day, bytes);
      memory.set(key(row.day), row.version, bytes);
    }
  }
  return { listed, texts };
}

/**
 * `head`, the days' points as one JSON array, then the tail made of the latest time any of the
 * days was recorded ("" when none): the answer's bytes, in parts. The parts are
 * the kept Buffers themselves, never joined: joining 6.5 MB into a fresh Buffer took 21–23 ms
 * whenever the memory was new to the process (its pages faulted in one by one on this kind of
 * host) and 0.5 ms otherwise, and a V8 string join of 3.5 MB took 30 ms.
 */
async function joinedDays(
  db: Database,
  orgId: string,
  f: DateRange,
  kind: "billing" | "usage",
  head: string,
  tail: (lastUpdated: string) => string,
): Promise<BodyParts> {
  const { listed, texts } = await keptDays(db, orgId, f, kind);
  const parts: Buffer[] = [Buffer.from(`${head}[`)];
  const comma = Buffer.from(",");
  let lastUpdated = "";
  for (const row of listed) {
    const bytes = texts.get(row.day);
    if (bytes?.length) {
      if (parts.length > 1) parts.push(comma);
      parts.push(bytes);
    }
    // The same fixed-width UTC format throughout: the latest is the greatest string.
    if (row.recorded_at > lastUpdated) lastUpdated = row.recorded_at;
  }
  parts.push(Buffer.from(`]${tail(lastUpdated)}`));
  return { parts, length: parts.reduce((sum, part) => sum + part.length, 0) };
}

/**
 * The billing chart's answer, `{"data": [...], "last_updated": "..."}` as UTF-8 in parts: daily spend per
 * project, resource type and region (the unit price the day's one price, else the effective
 * one), from each day's points as usage_day_json keeps them rendered. Numbers are JSON numbers,
 * last_updated as toISOString writes it ("" when there is no usage).
 */
export function dailyCostsBody(db: Database, orgId: string, f: DateRange): Promise<BodyParts> {
  return joinedDays(db, orgId, f, "billing", `{"data":`, (lastUpdated) => `,"last_updated":${JSON.stringify(lastUpdated)}}`);
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
function answeredByDays(f: UsageFilter, interval: "daily" | "monthly"): boolean {
  return interval === "daily" && !f.resources?.length && !f.productLines?.length && !f.projects?.length && !f.resourceTypes?.length && !f.regions?.length && !f.withoutReservations;
}

/** The usage chart's answer: from the daily sums when they can answer, else summed from the rows (usageByPeriod). */
export async function usageByPeriodBody(db: Database, orgId: string, f: UsageFilter, interval: "daily" | "monthly"): Promise<string | BodyParts> {
  if (answeredByDays(f, interval)) return joinedDays(db, orgId, f, "usage", `{"items":`, () => "}");
  const query = usageByPeriodBodyQuery(orgId, f, interval);
  if (!query) return JSON.stringify({ items: await usageByPeriod(db, orgId, f, interval) });
  const [row] = resultRows<{ points: string }>(await db.execute(query));
  return `{"items":${row?.points ?? "[]"}}`;
}

/**
 * What the usage of a range is now, as one short text: the range's days and their versions. Every
 * write to a day's usage renders the day again (usage_day_render: a new row, a new xmin), and a day
 * left without usage has no row, so equal stamps mean equal usage rows in the range.
 */
export async function usageStamp(db: Database, orgId: string, f: DateRange): Promise<string> {
  const [row] = resultRows<{ stamp: string }>(
    await db.execute(sql`select count(*) || ':' || coalesce(md5(string_agg(${days.usageDate}::text || '@' || xmin::text, ',' order by ${days.usageDate})), '') as stamp
      from ${days} where ${daysIn(orgId, f)}`),
  );
  return row?.stamp ?? "";
}

/** One day's filter values as usage_day_json.options renders them (migration 0018), of all its usage or of its usage on demand. */
interface DayOptionValues {
  /** Each project with the name its rows recorded. */
  projects: Record<string, string>;
  resource_types: string[];
  product_lines: string[];
  regions: string[];
}

/** The filters each day's rendered options answer: a range, and usage on demand or all of it. */
type DaysFilter = Pick<UsageFilter, "startDate" | "endDate" | "withoutReservations">;

/**
 * The usage options of the billing and usage pages, which ask for them on every view. Over a range
 * alone (of all usage, or usage on demand) they merge the days' rendered options: the days' versions
 * are read, and the options of days rendered since they were last read (at 1 M usage rows, summing
 * the rows took 1.5 to 2.3 s on PostgreSQL). A selection by project, resource type or region is
 * answered from the daily sums, and with its resources from the rows (usageOptions).
 *
 * Either is kept in the read cache under what the range's usage is now (its days' versions): usage
 * writes send no change notices (they come in volume), so that, not the store's version, tells a
 * kept answer from a stale one. Project names are in the store's version.
 */
export async function keptUsageOptions(db: Database, reads: ReadCache, orgId: string, f: UsageFilter, options: { withResources?: boolean } = {}): Promise<UsageOptions> {
  const { startDate, endDate, withoutReservations, ...selection } = f;
  if (!options.withResources && Object.values(selection).every((values) => !values?.length)) {
    return optionsOfDays(db, reads, orgId, { startDate, endDate, withoutReservations });
  }
  const stamp = await usageStamp(db, orgId, f);
  return reads.get(`usage-options:${orgId}:${stamp}:${JSON.stringify([f, options])}`, () => usageOptions(db, orgId, f, options));
}

/** The options of a range merged from its days' (keptUsageOptions): values in code point order, each project named as its latest day recorded it unless it is still in the organization. */
async function optionsOfDays(db: Database, reads: ReadCache, orgId: string, f: DaysFilter): Promise<UsageOptions> {
  const { listed, texts } = await keptDays(db, orgId, f, "options");
  const stamp = createHash("sha256")
    .update(listed.map((row) => `${row.day}@${row.version}`).join(","))
    .digest("base64url");
  return reads.get(`usage-day-options:${orgId}:${stamp}:${JSON.stringify(f)}`, async () => {
    const variant = f.withoutReservations ? "on_demand" : "all";
    const recorded: Record<string, string> = {};
    const [types, lines, regions] = [new Set<string>(), new Set<string>(), new Set<string>()];
    let first = "";
    let last = "";
    for (const row of listed) {
      const text = texts.get(row.day);
      if (!text?.length) continue;
      const day = (JSON.parse(text.toString("utf8")) as Record<"all" | "on_demand", DayOptionValues>)[variant];
      // A day with usage, but none on demand.
      if (Object.keys(day.projects).length === 0) continue;
      first ||= row.day;
      last = row.day;
      // Days in date order: a later day's name replaces an earlier one's.
      Object.assign(recorded, day.projects);
      for (const value of day.resource_types) types.add(value);
      for (const value of day.product_lines) lines.add(value);
      for (const value of day.regions) regions.add(value);
    }
    const ids = Object.keys(recorded).sort();
    // Each project's name as the exports write it (its current name, else the one it had), so a page
    // and its CSV name projects alike, whether or not the caller may open them.
    const current = ids.length
      ? await db
          .select({ id: projects.id, name: projects.name })
          .from(projects)
          .where(and(eq(projects.organizationId, orgId), inArray(projects.id, ids)))
      : [];
    const names = { ...recorded, ...Object.fromEntries(current.map((p) => [p.id, p.name])) };
    return {
      projects: ids,
      project_names: Object.fromEntries(ids.map((id) => [id, names[id]!])),
      resource_types: [...types].sort(),
      product_lines: [...lines].sort(),
      regions: [...regions].sort(),
      start_date: first,
      end_date: last,
    };
  });
}

/**
 * The values that exist for each filter in a selection, and the first and last day of its data:
 * from the daily sums, or from the rows for what the sums do not keep (resources, and a selection
 * by resource or product line).
 */
export async function usageOptions(db: Database, orgId: string, f: UsageFilter, { withResources = false } = {}): Promise<UsageOptions> {
  const fromRows = withResources || !!f.resources?.length || !!f.productLines?.length;
  const c = fromRows
    ? { table: u, where: where(orgId, f), projectId: u.projectId, projectName: u.projectName, usageDate: u.usageDate, resourceType: u.resourceType, productLine: u.productLine, region: u.region }
    : { table: d, where: whereDaily(orgId, f), projectId: d.projectId, projectName: d.projectName, usageDate: d.usageDate, resourceType: d.resourceType, productLine: d.productLine, region: d.region };
  const agg = (column: AnyPgColumn) => sql`array_agg(distinct ${column} order by ${column})`;
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

/** Each column an export may hold: its text as the database writes it, and whether it is a number. */
const CSV_COLUMNS = {
  cost: { text: sql`${u.cost}::text`, kind: "number" },
  metric: { text: sql`${u.billableMetric}`, kind: "text" },
  product_line: { text: sql`${u.productLine}`, kind: "text" },
  project_id: { text: sql`${u.projectId}`, kind: "text" },
  project_name: { text: sql`coalesce(${projects.name}, ${u.projectName})`, kind: "text" },
  quantity: { text: sql`${u.quantity}::text`, kind: "number" },
  region: { text: sql`${u.region}`, kind: "text" },
  resource_id: { text: sql`${u.resourceId}`, kind: "text" },
  resource_name: { text: sql`${u.resourceName}`, kind: "text" },
  resource_type: { text: sql`${u.resourceType}`, kind: "text" },
  unit_price: { text: sql`${u.unitPrice}::text`, kind: "number" },
  usage_date: { text: sql`to_char(${u.usageDate}, 'YYYY-MM-DD')`, kind: "text" },
} as const satisfies Record<string, CsvColumn>;

export type UsageCsvColumn = keyof typeof CSV_COLUMNS;

export interface UsagePosition {
  date: string;
  seq: string;
}

/** One batch of an export: up to `limit` lines after a position, in (usage_date, seq) order. */
export function usageBatchQuery(db: Database, orgId: string, f: UsageFilter, line: SQL, after: UsagePosition | null, limit: number) {
  const from = after ? sql`(${u.usageDate}, ${u.seq}) > (${after.date}::date, ${after.seq}::bigint)` : undefined;
  return db
    .select({ seq: u.seq, day: sql<string>`${u.usageDate}`.as("day"), line: sql<string>`${line}`.as("line") })
    .from(u)
    .leftJoin(projects, sameProject(orgId))
    .where(where(orgId, f, from))
    .orderBy(...LINE_ORDER)
    .limit(limit);
}

/** Every value as the server's text. */
const RAW_TEXT = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;
/** Characters at which a part of a batch read from PostgreSQL is closed: with its last line, far under 128 KB as UTF-16. */
const PART_CHARS = 16_384;
const dayAfter2000 = (days: number) => new Date(Date.UTC(2000, 0, 1) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * Resource-level usage as CSV lines (lib/gateway/csv.ts writes them) in
 * (usage_date, seq) order. Given `copyStallMs`, on PostgreSQL, while the pool has a
 * COPY slot free: one COPY streamed, given up after that long without progress
 * (csvCopy). Otherwise one chunk per batch of up to `batchSize` lines (unless
 * told, 5,000 on PostgreSQL and 2,000 on PGlite), each batch starting after the last line of the one before (keyset, no OFFSET, no
 * cursor: PGlite has none), so an export of any size holds one batch at a time.
 * Both the billing and the usage export stream this.
 */
export function usageCsv(
  db: Database,
  orgId: string,
  f: UsageFilter,
  columns: readonly UsageCsvColumn[],
  { batchSize, copyStallMs }: { batchSize?: number; copyStallMs?: number } = {},
): AsyncGenerator<CsvChunk> {
  const copyPool = copyStallMs ? postgresPool(db) : null;
  if (copyPool && copySlot(copyPool)) {
    const cells = columns.map((name) => CSV_COLUMNS[name]);
    const query = db
      .select(copyCells(cells))
      .from(u)
      .leftJoin(projects, sameProject(orgId))
      .where(where(orgId, f))
      .orderBy(...LINE_ORDER);
    return csvCopy(copyPool, cells, query.toSQL(), copyStallMs!);
  }
  const read: CsvBatchReader<UsagePosition> = async (line, after, limit) => {
    const query = usageBatchQuery(db, orgId, f, line, after, limit);
    const pool = postgresPool(db);
    if (pool) {
      // Rows as arrays of the server's text, straight from the driver: no object per row. The day is
      // read as days after 2000-01-01 (cheaper for the server than to_char on every row).
      const { sql: text, params } = query.toSQL();
      const { rows } = await pool.query<[string, string, string]>({
        text: `select seq, day - date '2000-01-01', line from (${text}) as batch`,
        values: params,
        rowMode: "array",
        types: RAW_TEXT,
      });
      const last = rows.at(-1);
      // Parts of whole lines, each small enough for the heap's young space (one string of a whole
      // batch would wait in its large-object space for a full collection).
      const parts: string[] = [];
      let part = "";
      for (const row of rows) {
        part += row[2];
        if (part.length >= PART_CHARS) {
          parts.push(part);
          part = "";
        }
      }
      if (part) parts.push(part);
      return { text: parts, lines: rows.length, last: last ? { date: dayAfter2000(Number(last[1])), seq: last[0] } : null };
    }
    const batch = query.as("batch");
    const [found] = await db
      .select({
        text: sql<string | null>`string_agg(${batch.line}, '' order by ${batch.day}, ${batch.seq})`,
        lines: sql<number>`count(*)::int`,
        lastDate: sql<string | null>`to_char(max(${batch.day}), 'YYYY-MM-DD')`,
        lastSeq: sql<string | null>`(array_agg(${batch.seq} order by ${batch.day} desc, ${batch.seq} desc))[1]::text`,
      })
      .from(batch);
    if (!found) return undefined;
    return { text: found.text, lines: Number(found.lines), last: found.lastDate && found.lastSeq ? { date: found.lastDate, seq: found.lastSeq } : null };
  };
  return csvLines(
    columns.map((name) => CSV_COLUMNS[name]),
    read,
    // PGlite's batch is one string of every line, and its WebAssembly memory holds the whole
    // result besides: smaller batches keep the export's memory down there.
    batchSize ?? (postgresPool(db) ? 5000 : 2000),
  );
}

/**
 * Resource-level usage in (usage_date, seq) order as values, one batch per query
 * (keyset, like usageCsv): the rows the exports hold, read the slow way, as the
 * reference their CSV is tested against.
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
      .leftJoin(projects, sameProject(orgId))
      .where(where(orgId, f, after ? sql`(${u.usageDate}, ${u.seq}) > (${after.date}::date, ${after.seq})` : undefined))
      .orderBy(...LINE_ORDER)
      .limit(batchSize);
    if (batch.length > 0) yield batch;
    const last = batch.at(-1);
    if (!last || batch.length < batchSize) return;
    after = { date: last.usageDate, seq: last.seq };
  }
}
