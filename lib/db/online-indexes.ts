import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type pg from "pg";

/**
 * Indexes on tables that grow large, built after the migrations without holding up writes.
 *
 * A migration runs in one transaction, and `CREATE INDEX` there takes a lock that stops every
 * insert, update and delete on its table until the index is built: on an audit log of ten million
 * entries, every signed call that writes an audit entry would wait (or time out) for the length of
 * the upgrade. `CREATE INDEX CONCURRENTLY` lets writes go on, but cannot run in a transaction, so
 * such indexes live apart: in the migrations folder's `online/` files, in name order, one statement
 * between statement breakpoints, each `CREATE INDEX CONCURRENTLY IF NOT EXISTS "name" ON "table" …`.
 * Comment lines are allowed; nothing else is.
 *
 * On PostgreSQL each missing index is built concurrently once the migrations are done (an index a
 * build left unfinished, which PostgreSQL keeps as INVALID, is dropped and built again), by one
 * replica at a time. On PGlite, one process with nobody else writing, they are built plainly
 * with the migrations.
 */
export interface OnlineIndex {
  name: string;
  table: string;
  statement: string;
  file: string;
}

const STATEMENT = /^CREATE INDEX CONCURRENTLY IF NOT EXISTS "([a-z0-9_]+)" ON "([a-z0-9_]+)" /;

/** The online index statements of a migrations folder; throws on a statement of any other kind. */
export function onlineIndexes(migrationsFolder: string): OnlineIndex[] {
  const dir = path.join(migrationsFolder, "online");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith(".sql"))
    .sort()
    .flatMap((file) =>
      readFileSync(path.join(dir, file), "utf8")
        .split("--> statement-breakpoint")
        .map((part) =>
          part
            .split("\n")
            .filter((line) => !line.trimStart().startsWith("--"))
            .join("\n")
            .trim(),
        )
        .filter((statement) => statement !== "")
        .map((statement) => {
          const match = STATEMENT.exec(statement);
          if (!match || statement.slice(0, -1).includes(";")) {
            throw new Error(`${file}: an online migration holds only CREATE INDEX CONCURRENTLY IF NOT EXISTS "name" ON "table" …, one per statement; found: ${statement.slice(0, 80)}`);
          }
          return { name: match[1]!, table: match[2]!, statement, file };
        }),
    );
}

/** The statement as a plain build, for a store with no other writer (PGlite). */
export function plainStatement(index: OnlineIndex): string {
  return index.statement.replace("CONCURRENTLY ", "");
}

export type Note = (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;

/** The indexes that are missing or were left invalid by a build that did not finish. */
async function unbuilt(client: pg.ClientBase, indexes: OnlineIndex[]): Promise<OnlineIndex[]> {
  const { rows } = await client.query<{ name: string }>(
    `select name from unnest($1::text[]) as name
     where not exists (select 1 from pg_index where indexrelid = to_regclass(quote_ident(name)) and indisvalid)`,
    [indexes.map((i) => i.name)],
  );
  const wanted = new Set(rows.map((r) => r.name));
  return indexes.filter((i) => wanted.has(i.name));
}

/** Bytes of the tables the indexes are on (their heaps): how long building them would take, roughly. */
async function tableBytes(client: pg.ClientBase, indexes: OnlineIndex[]): Promise<number> {
  const { rows } = await client.query<{ bytes: string }>(
    `select coalesce(sum(pg_relation_size(to_regclass(quote_ident(t)))), 0)::bigint as bytes from (select distinct unnest($1::text[]) as t) tables`,
    [indexes.map((i) => i.table)],
  );
  return Number(rows[0]?.bytes ?? 0);
}

/** Tables under this size have their indexes built before the store opens: seconds at most. */
export const WAIT_FOR_BUILDS_BELOW_BYTES = 64 * 1024 * 1024;

export interface OnlineBuild {
  /** Settles when every index is built, the build gave way to another replica's, or it failed (noted). */
  done: Promise<void>;
  /** Whether the build runs on after the store opened (its tables were large). */
  background: boolean;
  /** Cancels a build still running and waits for it to end; an index cut short is built at the next start. */
  stop(): Promise<void>;
}

/**
 * Builds a migrations folder's online indexes on a PostgreSQL pool: those that are missing, on one
 * of its connections with no statement timeout, under an advisory lock that a replica already
 * building holds (the others go on without waiting). Waited for when their tables are small
 * (below `waitBelowBytes`); otherwise the store opens at once and they are built meanwhile (reads
 * that would use them are slower until then, and nothing else changes).
 */
export async function buildOnlineIndexes(
  pool: pg.Pool,
  indexes: OnlineIndex[],
  lockId: number,
  note: Note,
  waitBelowBytes = WAIT_FOR_BUILDS_BELOW_BYTES,
): Promise<OnlineBuild> {
  const idle: OnlineBuild = { done: Promise.resolve(), background: false, stop: async () => {} };
  if (indexes.length === 0) return idle;
  const client = await pool.connect();
  let todo: OnlineIndex[];
  let background: boolean;
  let pid: number;
  try {
    todo = await unbuilt(client, indexes);
    pid = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
    background = todo.length > 0 && (await tableBytes(client, todo)) >= waitBelowBytes;
  } catch (error) {
    client.release(true);
    throw error;
  }
  if (todo.length === 0) {
    client.release();
    return idle;
  }
  let stopping = false;
  const done = (async () => {
    let healthy = false;
    try {
      // The two-key form: apart from the migrations' one-key lock of the same number.
      const { rows } = await client.query<{ ok: boolean }>("select pg_try_advisory_lock($1, 1) as ok", [lockId]);
      if (!rows[0]?.ok) {
        note("info", "online indexes: another replica is building them", { indexes: todo.map((i) => i.name) });
        healthy = true;
        return;
      }
      try {
        await client.query("set statement_timeout = 0");
        for (const index of todo) {
          if (stopping) break;
          const { rows: left } = await client.query<{ valid: boolean }>("select indisvalid as valid from pg_index where indexrelid = to_regclass(quote_ident($1))", [index.name]);
          if (left[0]?.valid) continue;
          if (left[0]) {
            note("warn", "online indexes: dropping an index a build left unfinished", { index: index.name });
            await client.query(`DROP INDEX CONCURRENTLY IF EXISTS "${index.name}"`);
          }
          // Told when the store serves meanwhile (a build over small tables is part of opening it).
          if (background) note("info", "online indexes: building, writes go on meanwhile", { index: index.name, table: index.table });
          const started = Date.now();
          await client.query(index.statement);
          if (background) note("info", "online indexes: built", { index: index.name, ms: Date.now() - started });
        }
        await client.query("reset statement_timeout");
      } finally {
        await client.query("select pg_advisory_unlock($1, 1)", [lockId]);
      }
      healthy = true;
    } catch (error) {
      if (!stopping) note("warn", "online indexes: a build failed; it is tried again at the next start", { error: error instanceof Error ? error.message : String(error) });
    } finally {
      // A connection left mid-build (cancelled, failed), or that a late cancel could still reach, is not lent again.
      client.release(!healthy || stopping);
    }
  })();
  const build: OnlineBuild = {
    done,
    background,
    stop: async () => {
      stopping = true;
      // Again until it ends: a cancel that lands between two statements cancels nothing.
      const cancel = () => void pool.query("select pg_cancel_backend($1)", [pid]).catch(() => undefined);
      cancel();
      const again = setInterval(cancel, 250);
      await done;
      clearInterval(again);
    },
  };
  if (!background) await done;
  return build;
}
