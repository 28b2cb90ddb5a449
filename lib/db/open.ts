import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import { drizzle as drizzleNodePg } from "drizzle-orm/node-postgres";
import { migrate as migrateNodePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { startAutovacuum, type DueTable } from "./autovacuum";
import { gatePglite } from "./background";
import { listenForChanges, StoreChanges, watchPglite, watchPool, type ChangeListener } from "./changes";
import { HostList, parseDatabaseUrl } from "./hosts";
import { buildOnlineIndexes, cancelOnlineBuilds, onlineIndexes, plainStatement, type OnlineBuild } from "./online-indexes";

/**
 * Opening a PostgreSQL store for one Drizzle schema: embedded PGlite (in memory or
 * in a data dir) or a PostgreSQL server, migrated on open. Shared by the gateway's
 * store and the console's own tables.
 */

export type StoreOptions =
  | { kind: "memory" }
  | { kind: "pglite"; dataDir: string }
  | {
      kind: "postgres";
      url: string;
      poolSize?: number;
      /**
       * The server stops any statement of the pool's after this long (PostgreSQL's statement_timeout),
       * so that a query outlives no request that gave up on it; migrations run without. Unset or 0: none.
       */
      statementTimeoutMs?: number;
      /**
       * Online indexes (online-indexes.ts) on tables smaller than this are built before the store
       * opens, larger ones after, while it serves. Default 64 MB.
       */
      waitForIndexesBelowBytes?: number;
    };

export type SchemaDb<S extends Record<string, unknown>> = PgDatabase<PgQueryResultHKT, S, ExtractTablesWithRelations<S>>;

export interface OpenedStore<S extends Record<string, unknown>> {
  db: SchemaDb<S>;
  kind: "pglite" | "postgres";
  /** Moves on every write, for caches of reads (see StoreChanges). */
  changes: StoreChanges;
  /** On PostgreSQL, settles when the first try at building the online indexes ends: built, or given way or failed (noted, and tried again later); on PGlite, built already. */
  onlineIndexes?: Promise<void>;
  /**
   * On PGlite, which has no autovacuum of its own: vacuums and analyzes the tables due now (after a
   * bulk write, so that its first readers get plans made with statistics). A pass also runs every
   * minute while the store is open (lib/db/autovacuum.ts). On PostgreSQL the server's autovacuum does this.
   */
  vacuumDue?: () => Promise<DueTable[]>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** The PGlite data dir's lock file name. */
  lockName?: string;
  /** On PostgreSQL, hear other processes' change notices (the gateway's tables send them). */
  listenForChanges?: boolean;
}

/** Longest wait for a new database connection (a host that does not answer is given up on). */
const CONNECT_TIMEOUT_MS = 5_000;
/** Longest wait for a connection from the pool, a free one included: well within a request's deadline. */
const POOL_WAIT_MS = 10_000;

/**
 * A connection string naming several hosts, or asking for a writable session: the
 * formation's nodes, of which the pool always uses the one taking writes now.
 */
function hostList(url: string): HostList | null {
  const parsed = parseDatabaseUrl(url);
  if (!parsed || (parsed.hosts.length === 1 && parsed.targetSessionAttrs === "any")) return null;
  return new HostList(parsed, CONNECT_TIMEOUT_MS);
}

function note(level: "info" | "warn", message: string, fields: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields })}\n`);
}

function warn(message: string, fields: Record<string, unknown>): void {
  note("warn", message, fields);
}

export interface Migrations {
  folder: string;
  /** Drizzle's bookkeeping table; schemas that share a database each need their own. */
  table?: string;
  /** Advisory lock serialising replicas that migrate one PostgreSQL at once. */
  lockId: number;
}

function migrationConfig(m: Migrations) {
  return { migrationsFolder: m.folder, ...(m.table ? { migrationsTable: m.table } : {}) };
}

/**
 * Applies a schema's migrations to an open database of either kind. On PGlite its online indexes
 * (online-indexes.ts) are built with them; on PostgreSQL `openDatabase` builds those concurrently.
 */
export async function migrateDatabase(db: unknown, kind: "pglite" | "postgres", migrations: Migrations): Promise<void> {
  if (kind === "pglite") {
    await migratePglite(db as never, migrationConfig(migrations));
    const client = (db as { $client: PGlite }).$client;
    for (const index of onlineIndexes(migrations.folder)) await client.exec(plainStatement(index));
    return;
  }
  const client = await (db as { $client: pg.Pool }).$client.connect();
  let locked = false;
  try {
    // An index built over a large table takes as long as it takes: no statement timeout here.
    await client.query("set statement_timeout = 0");
    // Online index builds hold this lock shared for as long as they take: they are cancelled (their
    // replicas try again later), and other replicas' migrations are waited for, a second at a time.
    while (!locked) {
      // Nothing (left) to apply (a restart, another replica's start or its migrations just done):
      // no lock, so none waits behind an online index build, and no build is cancelled.
      if (!(await migrationsPending(client, migrations))) return;
      await cancelOnlineBuilds(client, migrations.lockId);
      await client.query("set lock_timeout = '1s'");
      locked = await client.query("select pg_advisory_lock($1)", [migrations.lockId]).then(
        () => true,
        // Not had within the second, or given up as a deadlock (with a build the cancel missed): again.
        (error: { code?: string }) => (error.code === LOCK_NOT_AVAILABLE || error.code === DEADLOCK_DETECTED ? false : Promise.reject(error)),
      );
      await client.query("reset lock_timeout");
    }
    await migrateNodePg(drizzleNodePg({ client }) as never, migrationConfig(migrations));
  } finally {
    if (locked) await client.query("select pg_advisory_unlock($1)", [migrations.lockId]).catch(() => undefined);
    // Back to the pool's own settings; a connection that cannot say so is not lent again.
    const reset = await client.query("reset statement_timeout; reset lock_timeout").then(
      () => true,
      () => false,
    );
    client.release(!reset);
  }
}

/** PostgreSQL's lock_not_available (a lock not had within lock_timeout) and deadlock_detected. */
const LOCK_NOT_AVAILABLE = "55P03";
const DEADLOCK_DETECTED = "40P01";

/** Whether the folder holds a migration the database has not had (Drizzle's own test: by the journal's times). */
async function migrationsPending(client: pg.ClientBase, migrations: Migrations): Promise<boolean> {
  const { applied, last } = await migrationTimes(client, migrations);
  return applied < last;
}

/**
 * Whether the database has had a migration later than any of the folder's: a newer version of the
 * code runs beside this one (a rolling upgrade), whose schema this replica no longer speaks for.
 */
export async function newerMigrationsApplied(client: pg.ClientBase, migrations: Migrations): Promise<boolean> {
  const { applied, last } = await migrationTimes(client, migrations);
  return applied > last;
}

/** The time of the database's last migration (0 when never migrated) and of the folder's last. */
async function migrationTimes(client: pg.ClientBase, migrations: Migrations): Promise<{ applied: number; last: number }> {
  const journal = JSON.parse(readFileSync(path.join(migrations.folder, "meta/_journal.json"), "utf8")) as { entries: Array<{ when: number }> };
  const last = Math.max(0, ...journal.entries.map((e) => e.when));
  const table = (migrations.table ?? "__drizzle_migrations").replaceAll('"', '""');
  const applied = await client.query<{ at: string | null }>(`select max(created_at)::text as at from drizzle."${table}"`).then(
    ({ rows }) => Number(rows[0]?.at ?? 0),
    // No bookkeeping yet (undefined_table, invalid_schema_name): a database never migrated.
    (error: { code?: string }) => (error.code === "42P01" || error.code === "3F000" ? 0 : Promise.reject(error)),
  );
  return { applied, last };
}

export async function openDatabase<S extends Record<string, unknown>>(
  options: StoreOptions,
  schema: S,
  migrations: Migrations,
  { lockName = "stratus.lock", listenForChanges: listen = false }: OpenOptions = {},
): Promise<OpenedStore<S>> {
  const changes = new StoreChanges();
  if (options.kind === "postgres") {
    const hosts = hostList(options.url);
    const pool = new pg.Pool({
      ...(hosts ? hosts.clientConfig() : { connectionString: options.url }),
      max: options.poolSize ?? 10,
      // Waiting for a connection (or a free one) is bounded, so a store that is away answers
      // a request with an error it can report as unavailable, not with a hang.
      connectionTimeoutMillis: POOL_WAIT_MS,
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
      ...(hosts ? { onConnect: (client: pg.ClientBase) => hosts.verify(client) } : {}),
    });
    // An idle client losing its connection (server restart, failover) must not crash the process:
    // the pool drops it and the next query opens a new one.
    pool.on("error", (error) => warn("idle database connection lost", { error: error.message }));
    // A connection lost while lent out between two statements (mid-transaction) errors on the
    // client itself, with no query to fail: without a listener that would end the process. The
    // borrower's next statement fails instead, and the pool drops the client when it comes back.
    pool.on("connect", (client) => client.on("error", () => undefined));
    watchPool(pool, changes);
    const db = drizzleNodePg({ client: pool, schema });
    /** A connection of its own (the change listener's, the index build's), to the node the pool would use. */
    const ownConnection: pg.ClientConfig = hosts ? hosts.clientConfig() : { connectionString: options.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS };
    let online: OnlineBuild;
    try {
      await migrateDatabase(db, "postgres", migrations);
      online = await buildOnlineIndexes(onlineIndexes(migrations.folder), {
        connect: async () => {
          // Kept alive: a build waits on other sessions for as long as they take, saying nothing meanwhile.
          const client = new pg.Client({
            ...ownConnection,
            keepAlive: true,
            keepAliveInitialDelayMillis: 10_000,
          });
          // A connection lost while connecting or between statements fails the build's next step, not the process.
          client.on("error", () => undefined);
          await client.connect();
          await hosts?.verify(client).catch(async (error: unknown) => {
            await client.end().catch(() => undefined);
            throw error;
          });
          return client;
        },
        pool,
        lockId: migrations.lockId,
        note,
        superseded: (client) => newerMigrationsApplied(client, migrations),
        waitBelowBytes: options.waitForIndexesBelowBytes,
      });
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    const listener: ChangeListener | null = listen
      ? listenForChanges(ownConnection, changes, warn)
      : null;
    return {
      db: db as unknown as SchemaDb<S>,
      kind: "postgres",
      changes,
      onlineIndexes: online.done,
      close: async () => {
        await online.stop();
        await listener?.close();
        await pool.end();
      },
    };
  }

  let release = () => {};
  let client: PGlite;
  if (options.kind === "pglite") {
    const dir = path.resolve(options.dataDir);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    restrictToOwner(dir);
    release = lockDataDir(dir, lockName);
    try {
      client = await PGlite.create(path.join(dir, "pgdata"));
    } catch (error) {
      release();
      throw error;
    }
    // PGlite writes its files 0666; the data dir (0700) already shuts everyone else out, and the files follow.
    restrictToOwner(dir);
  } else {
    client = await PGlite.create();
  }
  gatePglite(client);
  watchPglite(client, changes);
  const db = drizzlePglite({ client, schema });
  try {
    await migrateDatabase(db, "pglite", migrations);
  } catch (error) {
    await client.close().catch(() => undefined);
    release();
    throw error;
  }
  const autovacuum = startAutovacuum(client, {
    onError: (error) => warn("autovacuum pass failed", { error: error instanceof Error ? error.message : String(error) }),
  });
  return {
    db: db as unknown as SchemaDb<S>,
    kind: "pglite",
    changes,
    vacuumDue: autovacuum.run,
    close: async () => {
      await autovacuum.stop();
      await client.close();
      if (options.kind === "pglite") restrictToOwner(path.resolve(options.dataDir));
      release();
    },
  };
}

/** The data dir and everything under it: directories 0700, files 0600 (the store, keys and secrets live here). */
export function restrictToOwner(dir: string): void {
  chmodSync(dir, 0o700);
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isDirectory()) chmodSync(full, 0o700);
    else if (entry.isFile()) chmodSync(full, 0o600);
  }
}

/**
 * Lock files this process holds. The pid in a lock file cannot tell this process's
 * own open store from a stale file left by an earlier process that had the same pid
 * (a restarted container is pid 1 again); this set can. On globalThis because a hot
 * reload re-evaluates this module while the first client is still open.
 */
const HELD_KEY = Symbol.for("stratus.heldDataDirs");
const held = ((globalThis as { [HELD_KEY]?: Set<string> })[HELD_KEY] ??= new Set<string>());

/**
 * PGlite does not lock its data dir and a second opener corrupts it: take an
 * exclusive lock file, and take over one left by a process that no longer runs.
 */
export function lockDataDir(dir: string, lockName = "stratus.lock"): () => void {
  const lockPath = path.join(dir, lockName);
  if (held.has(lockPath)) {
    throw new Error(
      `The data dir ${dir} is already open in this process (${process.pid}). PGlite allows one client per data dir: ` +
        "share the open store instead of opening it again, or use another STRATUS_DATA_DIR.",
    );
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      held.add(lockPath);
      return () => {
        held.delete(lockPath);
        try {
          if (readFileSync(lockPath, "utf8") === String(process.pid)) unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(readFileSync(lockPath, "utf8"));
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new Error(
          `The data dir ${dir} is in use by process ${holder}. PGlite allows one process per data dir: ` +
            "stop that process, use another STRATUS_DATA_DIR, or set DATABASE_URL to share PostgreSQL.",
        );
      }
      unlinkSync(lockPath);
    }
  }
  throw new Error(`Could not lock the data dir ${dir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
