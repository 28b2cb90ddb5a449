import { mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import { drizzle as drizzleNodePg } from "drizzle-orm/node-postgres";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import pg from "pg";
import { startAutovacuum, type DueTable } from "./autovacuum";
import { gatePglite } from "./background";
import { listenForChanges, poolHeartbeat, StoreChanges, watchPglite, watchPool, type ChangeListener } from "./changes";
import { HostList, parseDatabaseUrl } from "./hosts";
import { lockDataDir, restrictToOwner } from "./data-dir";
import { migrateDatabase, newerMigrationsApplied, type Migrations } from "./migrate";
import { buildOnlineIndexes, onlineIndexes, type OnlineBuild } from "./online-indexes";

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
      ? listenForChanges(
          ownConnection,
          changes,
          warn,
          poolHeartbeat(pool, hosts ? () => void hosts.probe() : undefined),
          hosts ? (client) => hosts.verify(client) : undefined,
        )
      : null;
    // A host the pool gave up on (a failover under way) may be the listener's, alive to it until its keep-alive fails:
    // it listens anew, wherever the pool now connects, and the cache reads through until it does.
    hosts?.onForget((host) => listener?.suspect(`the store's host ${host.host}:${host.port} failed`));
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
