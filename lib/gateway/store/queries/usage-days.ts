import { createHash } from "node:crypto";
import { and, eq, gte, inArray, lte, sql, type SQL } from "drizzle-orm";
import { compareCodePoints } from "@/lib/compare";
import type { UsageOptions } from "@/lib/contract/usage";
import type { ReadCache } from "@/lib/db/read-cache";
import { resultRows, type Database } from "../client";
import { projects, usageDayJson } from "../schema";
import { answeredByDays, usageByPeriod, usageByPeriodBodyQuery, usageOptions, type DateRange, type UsageFilter } from "./usage";

/**
 * What the charts and filters of the billing and usage pages read: each day of an organization's
 * usage rendered by the store (usage_day_json: the billing chart's points, the usage chart's, the
 * filters' values), kept in memory by the day's version and joined into answers here.
 */

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
  return sql`select to_char(${days.usageDate}, 'YYYY-MM-DD') as day, xmin::text as version, ${RECORDED_AT} as recorded_at, ${points} as points
    from ${days} where ${where} order by ${days.usageDate}`;
}

/** When a day was last recorded, as toISOString writes it: one fixed-width format, so the latest is the greatest string. */
const RECORDED_AT = sql`to_char(${days.recordedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The days of the range, each with its row's version and the time it was last recorded, without their points. */
function dayVersionsQuery(orgId: string, f: DateRange): SQL {
  return sql`select to_char(${days.usageDate}, 'YYYY-MM-DD') as day, xmin::text as version, ${RECORDED_AT} as recorded_at
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
 * them. A day rendered again between the two reads is listed as read the second time (its newer
 * text, version and time recorded), and one left without usage meanwhile is not listed.
 */
async function keptDays(db: Database, orgId: string, f: DateRange, kind: DayKind): Promise<{ listed: ListedDay[]; texts: Map<string, Buffer> }> {
  let memory = renderedDays.get(db);
  if (!memory) renderedDays.set(db, (memory = new RenderedDays(RENDERED_DAYS_BYTES)));
  const key = (day: string) => `${orgId}\n${kind}\n${day}`;
  let listed = resultRows<ListedDay>(await db.execute(dayVersionsQuery(orgId, f)));
  // The days' texts in hand before any is read (reading may push others out of memory).
  const texts = new Map<string, Buffer>();
  const missing: string[] = [];
  for (const row of listed) {
    const kept = memory.get(key(row.day), row.version);
    if (kept) texts.set(row.day, kept);
    else missing.push(row.day);
  }
  if (missing.length) {
    const rows = resultRows<ListedDay & { points: string }>(await db.execute(dayPointsQuery(orgId, missing, kind)));
    const reread = new Map<string, ListedDay>();
    for (const { points, ...day } of rows) {
      const bytes = Buffer.from(points);
      texts.set(day.day, bytes);
      memory.set(key(day.day), day.version, bytes);
      reread.set(day.day, day);
    }
    listed = listed.flatMap((day) => (texts.has(day.day) ? [reread.get(day.day) ?? day] : []));
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
    const ids = Object.keys(recorded).sort(compareCodePoints);
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
      resource_types: [...types].sort(compareCodePoints),
      product_lines: [...lines].sort(compareCodePoints),
      regions: [...regions].sort(compareCodePoints),
      start_date: first,
      end_date: last,
    };
  });
}
