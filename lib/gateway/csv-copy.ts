import { sql, type SQL } from "drizzle-orm";
import pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import type { CsvChunk, CsvColumn } from "./csv";
import { formulaGuard, type FormulaGuard } from "./csv-guard";
import { GatewayError } from "./errors";

/**
 * A CSV export on PostgreSQL as one `COPY (…) TO STDOUT (FORMAT csv)`, streamed from
 * one connection to the client: the engine writes every line, and csv-guard.ts holds
 * its bytes to the formula rule csv.ts writes the batched lines by.
 */

/**
 * The cell as COPY (FORMAT csv) is to write it: its text as it is, the formula rule
 * applied to the bytes as they pass (csv-guard.ts). COPY quotes a field holding the
 * separator, a quote or a line break, with its quotes doubled, as csv-stringify
 * does, and writes a null as nothing; it would quote an empty text, which
 * csv-stringify does not, so an empty text is written as a null.
 */
function copyCell({ text, kind }: CsvColumn): SQL {
  return kind === "number" ? text : sql`nullif(${text}, '')`;
}

/** The export's columns as COPY's cells, each aliased c0, c1, … in order, for a select of those fields. */
export function copyCells(columns: readonly CsvColumn[]): Record<string, SQL.Aliased<string | null>> {
  return Object.fromEntries(columns.map((column, i) => [`c${i}`, sql<string | null>`${copyCell(column)}`.as(`c${i}`)]));
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A value of a COPY's select written as a literal (pg's escapeLiteral for text, a number in parentheses). */
function literal(value: unknown): string {
  if (typeof value === "string") {
    // What the same value as a parameter is refused with (22021), before it could end the query's message.
    if (value.includes("\0") || LONE_SURROGATE.test(value)) throw new GatewayError("bad_request", "request: text must not contain NUL characters or unpaired surrogates");
    return pg.escapeLiteral(value);
  }
  if (typeof value === "number" && Number.isFinite(value)) return `(${value})`;
  if (typeof value === "bigint") return `(${value})`;
  throw new Error(`a COPY takes text and numbers as its select's values, not ${value === null ? "null" : typeof value}`);
}

/**
 * COPY takes no parameters: the query's `$n` written as its values' literals,
 * outside quoted strings and quoted names only. The SQL drizzle builds from this
 * project's queries has no other kind of quoting; a query with any other (a
 * backslash, dollar quotes, a comment, a quote left open) is refused rather than guessed at.
 */
export function inlineParameters(text: string, params: readonly unknown[]): string {
  const unsafe = () => new Error("a COPY's select holds quoting or a comment that its values cannot be written into safely");
  // No backslash anywhere (an E'' string's escapes would move where its quotes end).
  if (text.includes("\\")) throw unsafe();
  return text
    .split(/('(?:[^']|'')*'|"(?:[^"]|"")*")/)
    .map((part, i) => {
      if (i % 2 === 1) return part;
      if (/['"]|\$\$|--|\/\*/.test(part)) throw unsafe();
      return part.replace(/(?<![\w$])\$(\d+)/g, (_, n: string) => {
        const at = Number(n) - 1;
        if (at < 0 || at >= params.length) throw new Error(`the query has no value for $${n}`);
        return literal(params[at]);
      });
    })
    .join("");
}

/** How long an export's COPY may run at most (PostgreSQL's statement_timeout for it). */
const COPY_MAX_MS = 60 * 60_000;
/** COPY exports at once per pool: a quarter of its connections (each holds one to its end); the rest read in batches. */
const copying = new WeakMap<pg.Pool, number>();

/** Whether a COPY export may start on this pool now (one counts from its first read until it is finished). */
export function copySlot(pool: pg.Pool): boolean {
  const max = Math.max(1, Math.floor(((pool as unknown as { options: { max?: number } }).options.max ?? 10) / 4));
  return (copying.get(pool) ?? 0) < max;
}

/**
 * The rows of `query` (a select of copyCells' fields, in the export's order) as
 * COPY writes them, streamed from one connection of the pool, held to the end: the
 * server writes the next rows while these go out, and waits (the connection's
 * socket paused) while the client does not read. When no bytes have come from the
 * server or been taken by the reader for `stallMs` (a reader that went away without
 * a word, an answer thrown away), the export is given up: its connection is closed
 * then and there, so the server's session ends, whether or not anyone reads again.
 */
export function csvCopy(pool: pg.Pool, columns: readonly CsvColumn[], query: { sql: string; params: unknown[] }, stallMs: number): AsyncGenerator<CsvChunk> {
  const text = `copy (${inlineParameters(query.sql, query.params)}) to stdout (format csv)`;
  return copyStream(pool, text, formulaGuard(columns.map((c) => c.kind)), stallMs);
}

/** Pieces of the guard's output as one chunk. */
function joined(pieces: Uint8Array[]): CsvChunk | null {
  if (pieces.length === 0) return null;
  return (pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces)) as CsvChunk;
}

async function* copyStream(pool: pg.Pool, text: string, guard: FormulaGuard, stallMs: number): AsyncGenerator<CsvChunk> {
  // Counted from the first read, which the caller makes at once (csvResponse), in the same turn as its copySlot.
  copying.set(pool, (copying.get(pool) ?? 0) + 1);
  let client: pg.PoolClient | undefined;
  let timer: NodeJS.Timeout | undefined;
  let finished = false;
  let stalled: GatewayError | undefined;
  /** Once, from whichever comes first (the end, a failure, the reader leaving, the stall timer): the connection back to the pool, or closed when it may be mid-COPY or mid-transaction. */
  const finish = (clean: boolean) => {
    clearTimeout(timer);
    if (finished) return;
    finished = true;
    client?.release(!clean);
    copying.set(pool, (copying.get(pool) ?? 1) - 1);
  };
  try {
    client = await pool.connect();
    await client.query("begin read only");
    await client.query(`set local statement_timeout = ${COPY_MAX_MS}`);
    // PostgreSQL 14 and later look for a closed connection while a statement runs.
    await client.query("select set_config('client_connection_check_interval', '1000', true) where current_setting('server_version_num')::int >= 140000");
    const stream = client.query(copyTo(text));
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        stalled = new GatewayError("timeout", `the export moved no bytes for ${stallMs} ms`);
        stream.destroy(stalled);
        finish(false);
      }, stallMs);
    };
    arm();
    for await (const chunk of stream) {
      arm();
      const out = joined(guard.push(chunk as Buffer));
      if (out) yield out;
      if (stalled) throw stalled;
      arm();
    }
    clearTimeout(timer);
    const rest = joined(guard.end());
    if (rest) yield rest;
    if (stalled) throw stalled;
    await client.query("commit");
    finish(true);
  } finally {
    finish(false);
  }
}
