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
 * Comment lines are allowed; nothing else is. They run after every migration, so each must hold for
 * the latest schema: a migration that drops or renames a column such an index is on changes its
 * online statement in the same change.
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
/** The longest a store's opening waits for a build, whatever the tables' size (it may wait on other sessions). */
export const WAIT_FOR_BUILDS_AT_MOST_MS = 30_000;

export interface OnlineBuild {
  /** Settles when the first try has built every index, gave way (to another replica's build, to migrations), or failed (noted). */
  done: Promise<void>;
  /** Whether the build runs on after the store opened. */
  background: boolean;
  /** Cancels a build still running (an index cut short is built at the next start) and any try still to come. */
  stop(): Promise<void>;
}

/**
 * How long a replica whose build gave way or failed waits before it tries again, doubled after each
 * try that leaves something unbuilt, up to RETRY_BUILDS_AT_MOST_MS: a build that fails the same way
 * every time (a full disk) is not repeated, with its warning, every few minutes for weeks.
 */
export const RETRY_BUILDS_EVERY_MS = 10 * 60_000;
export const RETRY_BUILDS_AT_MOST_MS = 6 * 3_600_000;

export interface BuildOptions {
  /** A connection of the build's own: a build may take hours, and holds no connection of the pool meanwhile. */
  connect: () => Promise<pg.Client>;
  /** Any connection to the same server, to cancel the build with. */
  pool: pg.Pool;
  /** The migrations' advisory lock (see `migrateDatabase`). */
  lockId: number;
  note: Note;
  waitBelowBytes?: number;
  waitAtMostMs?: number;
  /** The first wait before trying again; each later one doubles, up to RETRY_BUILDS_AT_MOST_MS. */
  retryEveryMs?: number;
  /**
   * Whether a newer version's migrations are applied (`newerMigrationsApplied`): in a rolling upgrade
   * the replicas of the old version must not build (or rebuild) their own version's list, which the
   * new one may have changed. Asked before each try; when it says so, this replica tries no more.
   */
  superseded?: (client: pg.ClientBase) => Promise<boolean>;
}

/** One try at building what is unbuilt: settles `true` when nothing is left to build (or none is this replica's to build). */
interface Attempt {
  done: Promise<boolean>;
  /** The indexes it found unbuilt. */
  unbuilt: string[];
  /** Whether the store serves meanwhile (its builds are told in the log); set when opening stops waiting for it. */
  background: boolean;
  stop(): Promise<void>;
}

const NOTHING_LEFT: Attempt = { done: Promise.resolve(true), unbuilt: [], background: false, stop: async () => {} };
const IDLE: OnlineBuild = { done: Promise.resolve(), background: false, stop: async () => {} };

/**
 * Builds a migrations folder's online indexes on PostgreSQL: those that are missing, on a connection
 * of their own with no statement timeout. One replica builds at a time (the advisory lock
 * `(lockId, 1)`), and never while migrations run: the build holds the migrations' lock `lockId`
 * shared, which a replica with migrations to apply takes whole, cancelling builds first
 * (`migrateDatabase`), so that no migration queues behind a build and every write behind it.
 * Waited for when the tables are small (below `waitBelowBytes`), for `waitAtMostMs` at most;
 * otherwise the store opens at once and the indexes are built meanwhile (reads that would use them
 * are slower until then; nothing else changes).
 *
 * A try that gives way (another replica builds, or migrations run) or fails is made again, first
 * `retryEveryMs` later and then at doubling intervals (at most RETRY_BUILDS_AT_MOST_MS), for as long
 * as the replica runs, until nothing is left to build: an index whose build was cut short (left
 * INVALID, which PostgreSQL still updates on every write) or never begun does not wait for a
 * replica's next start, which in a steady formation may be weeks away. Once a newer version's
 * migrations are applied (`superseded`), this replica tries no more: the newer one's replicas build
 * their own list.
 */
export async function buildOnlineIndexes(indexes: OnlineIndex[], options: BuildOptions): Promise<OnlineBuild> {
  const { waitAtMostMs = WAIT_FOR_BUILDS_AT_MOST_MS, retryEveryMs = RETRY_BUILDS_EVERY_MS, note } = options;
  if (indexes.length === 0) return IDLE;
  let wait = retryEveryMs;
  const first = await attempt(indexes, options, true, wait);
  if (first === NOTHING_LEFT) return IDLE;
  /** The latest try, or the one being begun: what a stop waits for and stops. */
  let current: Promise<Attempt> = Promise.resolve(first);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  /** After a try that left something unbuilt, the next one, `wait` later; the wait doubles each time. */
  const retryAfter = (tried: Attempt) =>
    void tried.done.then((finished) => {
      if (finished || stopped) return;
      timer = setTimeout(() => {
        wait = Math.min(wait * 2, RETRY_BUILDS_AT_MOST_MS);
        current = attempt(indexes, options, false, wait);
        void current
          .then((next) => {
            if (!stopped) retryAfter(next);
          })
          // Never expected (a try notes its own failures); never a crash, and no more tries.
          .catch((error: unknown) => note("warn", "online indexes: tries stopped", { error: error instanceof Error ? error.message : String(error) }));
      }, wait);
      // A replica's shutdown never waits for its next try.
      timer.unref();
    });
  retryAfter(first);
  if (!first.background) {
    let patience: NodeJS.Timeout | undefined;
    const waited = await Promise.race([first.done.then(() => true), new Promise<boolean>((resolve) => (patience = setTimeout(() => resolve(false), waitAtMostMs)))]);
    clearTimeout(patience);
    if (!waited) {
      // From here the store serves: the build's progress is told.
      first.background = true;
      note("info", `online indexes: still building after ${waitAtMostMs} ms; the store opens meanwhile`, { indexes: first.unbuilt });
    }
  }
  return {
    done: first.done.then(() => undefined),
    background: first.background,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await (await current.catch(() => NOTHING_LEFT)).stop();
    },
  };
}

/** One try: what is unbuilt, built under the builds' lock if it is free (see `buildOnlineIndexes`). */
async function attempt(indexes: OnlineIndex[], options: BuildOptions, first: boolean, retryInMs: number): Promise<Attempt> {
  const { connect, pool, lockId, note, waitBelowBytes = WAIT_FOR_BUILDS_BELOW_BYTES, superseded } = options;
  const later = { retryInMs };
  let client: pg.Client | undefined;
  let todo: OnlineIndex[];
  let background: boolean;
  let session: { pid: number; started: string };
  try {
    client = await connect();
    // A connection lost between statements must not end the process: the next statement fails instead.
    client.on("error", () => undefined);
    if (await superseded?.(client)) {
      await client.end();
      note("info", "online indexes: a newer version's migrations are applied; its replicas build the indexes, not this one", {});
      return NOTHING_LEFT;
    }
    todo = await unbuilt(client, indexes);
    if (todo.length === 0) {
      await client.end();
      return NOTHING_LEFT;
    }
    session = (await client.query<{ pid: number; started: string }>("select pid, backend_start::text as started from pg_stat_activity where pid = pg_backend_pid()")).rows[0]!;
    // Waited for only as part of opening the store, and only over small tables.
    background = !first || (await tableBytes(client, todo)) >= waitBelowBytes;
  } catch (error) {
    // The indexes make reads faster; the store opens without them (no connection to spare, say).
    await client?.end().catch(() => undefined);
    note("warn", "online indexes: not built now; tried again later", { error: error instanceof Error ? error.message : String(error), ...later });
    return { done: Promise.resolve(false), unbuilt: indexes.map((i) => i.name), background: false, stop: async () => {} };
  }
  const connection = client;
  let stopping = false;
  let settled = false;
  const self: Attempt = {
    done: Promise.resolve(false),
    unbuilt: todo.map((i) => i.name),
    background,
    stop: async () => {
      if (settled) return;
      stopping = true;
      // This build's session only (a pid alone may be another session's by now), again until it
      // ends: a cancel that lands between two statements cancels nothing.
      const cancel = () =>
        void pool.query("select pg_cancel_backend(pid) from pg_stat_activity where pid = $1 and backend_start = $2::timestamptz", [session.pid, session.started]).catch(() => undefined);
      cancel();
      const again = setInterval(cancel, 250);
      await self.done;
      clearInterval(again);
    },
  };
  self.done = (async () => {
    try {
      // Two locks, taken without waiting: the migrations' shared (none running), and the builds' own.
      const { rows } = await connection.query<{ ok: boolean }>("select pg_try_advisory_lock_shared($1::bigint) and pg_try_advisory_lock($1::int, 1) as ok", [lockId]);
      if (!rows[0]?.ok) {
        // Said once: a replica waiting out another's build of hours would say it at every try.
        if (first) note("info", "online indexes: left to the replica building them or applying migrations; tried again later", { indexes: todo.map((i) => i.name), ...later });
        return false;
      }
      await connection.query("set statement_timeout = 0");
      for (const index of todo) {
        if (stopping) return false;
        const { rows: left } = await connection.query<{ valid: boolean }>("select indisvalid as valid from pg_index where indexrelid = to_regclass(quote_ident($1))", [index.name]);
        if (left[0]?.valid) continue;
        if (left[0]) {
          note("warn", "online indexes: dropping an index a build left unfinished", { index: index.name });
          await connection.query(`DROP INDEX CONCURRENTLY IF EXISTS "${index.name}"`);
        }
        // Told when the store serves meanwhile (a build over small tables is part of opening it).
        if (self.background) note("info", "online indexes: building, writes go on meanwhile", { index: index.name, table: index.table });
        const started = Date.now();
        await connection.query(index.statement);
        if (self.background) note("info", "online indexes: built", { index: index.name, ms: Date.now() - started });
      }
      return true;
    } catch (error) {
      if (!stopping) note("warn", "online indexes: a build ended early; tried again later", { error: error instanceof Error ? error.message : String(error), ...later });
      return false;
    } finally {
      // Its session's end releases both locks.
      await connection.end().catch(() => undefined);
      settled = true;
    }
  })();
  return self;
}

/**
 * Cancels the online index builds under a migrations lock (`buildOnlineIndexes`), before migrations
 * are applied: a migration waiting behind a build would hold up every statement on its table.
 */
export async function cancelOnlineBuilds(client: pg.ClientBase, lockId: number): Promise<void> {
  await client.query(
    `select pg_cancel_backend(pid) from pg_locks
     where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())
       and classid = $1::int::oid and objid = 1 and objsubid = 2`,
    [lockId],
  );
}
