import { asc, and, eq, sql, type SQL } from "drizzle-orm";
import type pg from "pg";
import { csvLines, postgresPool, type CsvBatchReader, type CsvChunk, type CsvColumn } from "../../csv";
import { copyCells, copySlot, csvCopy } from "../../csv-copy";
import type { Database } from "../client";
import { projects, usageRecords } from "../schema";
import { usageWhere as where, type UsageFilter } from "./usage";

/** The billing and usage exports: resource-level usage rows as CSV, streamed in (usage_date, seq) order. */

const u = usageRecords;

/** A usage row's project, when it still exists in the organization (its current name; else the row keeps the one it had). */
const sameProject = (orgId: string) => and(eq(projects.id, u.projectId), eq(projects.organizationId, orgId));
/** The exports' order of lines. */
const LINE_ORDER = [asc(u.usageDate), asc(u.seq)];

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
export function usageBatchQuery(db: Database, orgId: string, f: UsageFilter, line: SQL, after: UsagePosition | null, limit: number, through?: UsagePosition) {
  const from = after ? sql`(${u.usageDate}, ${u.seq}) > (${after.date}::date, ${after.seq}::bigint)` : undefined;
  const to = through ? sql`(${u.usageDate}, ${u.seq}) <= (${through.date}::date, ${through.seq}::bigint)` : undefined;
  const query = db
    .select({ seq: u.seq, day: sql<string>`${u.usageDate}`.as("day"), line: sql<string>`${line}`.as("line") })
    .from(u)
    .leftJoin(projects, sameProject(orgId))
    .where(where(orgId, f, from && to ? and(from, to) : (from ?? to)))
    .orderBy(...LINE_ORDER);
  // A range with both ends is read whole (a batch read again: csvLines).
  return through ? query : query.limit(limit);
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
  const read: CsvBatchReader<UsagePosition> = async (line, after, limit, through) => {
    const query = usageBatchQuery(db, orgId, f, line, after, limit, through);
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
