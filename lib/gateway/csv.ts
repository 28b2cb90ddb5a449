import { stringify } from "csv-stringify/sync";
import { sql, type SQL } from "drizzle-orm";
import type { Context } from "hono";
import pg from "pg";
import { FORMULA_TRIGGERS, neutraliseFormula, neutraliseNumber, PLAIN_NUMBER } from "@/lib/csv-formula";
import type { AppEnv } from "./context";
import { errorDetail } from "@/lib/error-detail";

/**
 * The gateway's one CSV writer. Every CSV the gateway sends is a header written
 * here and lines written by the database from the SQL this module builds, in
 * keyset-ordered batches (no cursors: PGlite has none): the database writes
 * the text, far cheaper than reading every value and writing it here. The lines are what csv-stringify writes of the same cells after
 * lib/csv-formula.ts's rule: a cell starting like a formula gets a `'` in front,
 * and a field holding a comma, a quote or a line break is quoted with its quotes
 * doubled. A number column's plain decimal numbers (a credit of -12.50) are
 * written as they are.
 *
 * On PostgreSQL an export is one `COPY (…) TO STDOUT (FORMAT csv)` streamed to the
 * client instead (csv-copy.ts): COPY writes the cells as they are and quotes them as
 * csv-stringify does, and csv-guard.ts applies the rule to its bytes.
 *
 * csvResponse only takes CsvChunk bytes, which only this module and csv-copy.ts
 * make: an export cannot skip the rule.
 */

/** `text`: any text, neutralised. `number`: a numeric column cast to text; neutralised unless a plain decimal. */
export type CsvKind = "text" | "number";

export interface CsvColumn {
  /** The cell's text as SQL (null writes an empty cell). */
  text: SQL;
  kind: CsvKind;
}

declare const csvChunk: unique symbol;
/**
 * CSV written by this module, as UTF-8: whole lines, each ending in a newline (from
 * PostgreSQL's COPY, its bytes as they come: a line may be cut between two chunks).
 */
export type CsvChunk = Uint8Array & { readonly [csvChunk]: true };

/**
 * One batch read from the store: its lines as one string or as parts of whole lines
 * in order, how many, and where the next batch starts.
 */
export interface CsvBatch<K> {
  text: string | readonly string[] | null;
  lines: number;
  last: K | null;
}

/**
 * Reads the batch of at most `limit` rows after `after` (null: from the start), in
 * the export's keyset order, with `line` (the SQL of one row's CSV line) joined in
 * that order into one string or into parts of whole lines. Given `through`, every
 * row after `after` up to and including `through` instead, whatever `limit` says.
 */
export type CsvBatchReader<K> = (line: SQL, after: K | null, limit: number, through?: K) => Promise<CsvBatch<K> | undefined>;

/** The header line, through the same rule. */
export function csvHeader(columns: readonly string[]): string {
  return stringify([columns.map(neutraliseFormula)]);
}

/** One record as this module writes it, in JavaScript: the reference the SQL is held to (csv.test.ts). */
export function csvRecord(cells: ReadonlyArray<{ value: string | null; kind: CsvKind }>): string {
  return stringify([cells.map(({ value, kind }) => (value === null ? "" : kind === "number" ? neutraliseNumber(value) : neutraliseFormula(value)))]);
}

/** PostgreSQL's chr() of each trigger character: constants, folded by the planner. */
const TRIGGERS_SQL = sql.raw(FORMULA_TRIGGERS.map((ch) => `chr(${ch.codePointAt(0)})`).join(", "));
/** What csv-stringify quotes: a field holding a comma, a quote or a line break. */
const NEEDS_QUOTES = sql.raw(`E'[",\\r\\n]'`);

function quoted(value: SQL): SQL {
  return sql`case when ${value} ~ ${NEEDS_QUOTES} then '"' || replace(${value}, '"', '""') || '"' else ${value} end`;
}

function neutralised(text: SQL): SQL {
  return sql`case when left(${text}, 1) in (${TRIGGERS_SQL}) then '''' || ${text} else ${text} end`;
}

/** The cell by the whole rule. */
function carefulCell({ text, kind }: CsvColumn): SQL {
  const cell = quoted(neutralised(text));
  return kind === "number" ? sql`case when ${text} ~ ${PLAIN_NUMBER.source} then ${text} else ${cell} end` : cell;
}

/** A CSV line of the given fields, null as empty, ending in a newline (`||` is cheaper than concat()). */
const joinLine = (fields: SQL[]) => sql`${sql.join(
  fields.map((field) => sql`coalesce(${field}, '')`),
  sql` || ',' || `,
)} || E'\\n'`;

/**
 * The node-postgres pool under a database, or null on PGlite. It decides how an export reads: on
 * node-postgres a batch is one row per line (the server's string_agg costs more than the client's
 * join) and a whole export can be one COPY (csvCopy); PGlite parses every value of every row in
 * JavaScript, so a batch there is one string.
 */
export function postgresPool(db: unknown): pg.Pool | null {
  const client = (db as { $client?: unknown }).$client;
  return client instanceof pg.Pool ? client : null;
}

/** A field written as it is by the plain lines: no separator, quote or line break, and no trigger character first. */
const PLAIN_FIELD = `(?![${FORMULA_TRIGGERS.map((ch) => `\\u{${ch.codePointAt(0)!.toString(16)}}`).join("")}])[^,\\n"\\r]*`;
const plainLines = new Map<number, RegExp>();
/** Text made only of whole lines of `columns` plain fields (one regular expression runs far faster than a loop over the characters). */
function plainLinesOf(columns: number): RegExp {
  let pattern = plainLines.get(columns);
  if (!pattern) {
    pattern = new RegExp(`^(?:(?:${PLAIN_FIELD},){${columns - 1}}${PLAIN_FIELD}\\n)*$`, "u");
    plainLines.set(columns, pattern);
  }
  return pattern;
}

/**
 * Whether lines written with every field as it is are exactly what the whole rule
 * writes: every line has exactly its separators and no quote, carriage return or
 * cell starting with a trigger character, and there are as many lines as rows (so
 * no field held a comma or a line break). Then no field needed quotes or a prefix.
 */
export function plainIsExact(text: string | readonly string[], lines: number, columns: number): boolean {
  const plain = plainLinesOf(columns);
  let newlines = 0;
  for (const part of typeof text === "string" ? [text] : text) {
    // Each part holds whole lines.
    if (!plain.test(part)) return false;
    for (let at = part.indexOf("\n"); at !== -1; at = part.indexOf("\n", at + 1)) newlines++;
  }
  return newlines === lines;
}

/**
 * The lines as one UTF-8 chunk, written straight from the parts: a batch's bytes
 * live outside the JavaScript heap and go with the first minor collection after
 * the client has taken them, where one string of a whole batch (hundreds of KB)
 * would wait in the heap's large-object space for a full collection.
 */
function utf8(text: string | readonly string[]): CsvChunk {
  const parts = typeof text === "string" ? [text] : text;
  let size = 0;
  for (const part of parts) size += Buffer.byteLength(part);
  // Its own memory (not a slice of Node's shared pool, which a reader of `.buffer` would see), all written below.
  const bytes = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (const part of parts) at += bytes.write(part, at);
  return bytes as Uint8Array as CsvChunk;
}

const isEmpty = (text: string | readonly string[] | null | undefined) => !text || text.length === 0;

/**
 * CSV lines (no header) of the rows `read` walks, one chunk per batch of up to
 * `batchSize` rows, each batch starting after the last row of the one before.
 * Lines are written plain, the cheap way; a batch in which some field needed
 * quotes or a prefix is read again with the whole rule, over the same range of
 * positions (not the same count of rows). The next batch is asked
 * for as soon as one arrives, so on PostgreSQL the server writes it while this
 * one goes out (at most two batches are held).
 */
export async function* csvLines<K>(columns: readonly CsvColumn[], read: CsvBatchReader<K>, batchSize = 5000): AsyncGenerator<CsvChunk> {
  const plain = joinLine(columns.map((c) => c.text));
  const careful = joinLine(columns.map(carefulCell));
  let after: K | null = null;
  let next: Promise<CsvBatch<K> | undefined> | null = read(plain, after, batchSize);
  try {
    while (next) {
      const found: CsvBatch<K> | undefined = await next;
      next = null;
      if (!found || isEmpty(found.text) || found.last === null) return;
      const full = Number(found.lines) >= batchSize;
      if (full) next = read(plain, found.last, batchSize);
      // The second read is another moment (another statement, perhaps another connection): it covers exactly the
      // range the first one did, up to its last row, on which the next batch starts. Read by count, a row written or
      // purged meanwhile inside the range would shift its end, and a row would be left out or written twice.
      const text = plainIsExact(found.text!, Number(found.lines), columns.length) ? found.text : (await read(careful, after, batchSize, found.last))?.text;
      // Every row of the range purged between the two reads: nothing to write of it, and the rows after it still are.
      if (!isEmpty(text)) yield utf8(text!);
      after = found.last;
    }
  } finally {
    // An export ended early (the client went away) leaves no read unobserved.
    next?.catch(() => undefined);
  }
}

/**
 * A CSV answer streamed batch by batch: each batch is read from the store only
 * when the client has taken the one before, so the whole export never sits in
 * memory. The first batch is read before answering, so a failing store is still
 * a 500; a failure later can only cut the stream short and is logged.
 */
export async function csvResponse(
  c: Context<AppEnv>,
  input: { fileName: string; columns: readonly string[]; chunks: AsyncGenerator<CsvChunk> },
): Promise<Response> {
  const { chunks } = input;
  const headers = {
    "Content-Type": "text/csv; charset=utf-8",
    "Content-Disposition": `attachment; filename="${input.fileName.replace(/[^A-Za-z0-9._-]/g, "_")}"`,
  };
  // A HEAD answer's body is thrown away unread: the export is not started at all.
  if (c.req.method === "HEAD") {
    await chunks.return(undefined);
    return c.body(null, 200, headers);
  }
  const first = await chunks.next();
  const pending: Uint8Array[] = [new TextEncoder().encode(csvHeader(input.columns))];
  if (!first.done) pending.push(first.value);
  let done = first.done === true;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending.length > 0) {
        for (const chunk of pending) controller.enqueue(chunk);
        pending.length = 0;
        if (done) controller.close();
        return;
      }
      try {
        const next = await chunks.next();
        if (next.done) {
          done = true;
          controller.close();
        } else {
          controller.enqueue(next.value);
        }
      } catch (error) {
        c.get("deps").logger.error("CSV export cut short", { request_id: c.get("requestId"), error: errorDetail(error) });
        controller.error(error);
      }
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  return c.body(stream, 200, headers);
}
