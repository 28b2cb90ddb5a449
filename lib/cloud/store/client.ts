import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import { drizzle as drizzleNodePg } from "drizzle-orm/node-postgres";
import { migrate as migrateNodePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { env } from "@/lib/env";
import * as schema from "./schema";

export type ConsoleSchema = typeof schema;
/** PGlite or node-postgres, typed with the console's tables only. */
export type ConsoleDb = PgDatabase<PgQueryResultHKT, ConsoleSchema, ExtractTablesWithRelations<ConsoleSchema>>;

export interface ConsoleStore {
  db: ConsoleDb;
  kind: "pglite" | "postgres";
  close(): Promise<void>;
}

export const CONSOLE_MIGRATIONS_FOLDER = path.join(process.cwd(), "lib/cloud/store/migrations");
/** Kept apart from the gateway's __drizzle_migrations: the two schemas migrate independently. */
export const CONSOLE_MIGRATIONS_TABLE = "__console_migrations";
const MIGRATION_LOCK_ID = 727_411_101;

const migrationConfig = { migrationsFolder: CONSOLE_MIGRATIONS_FOLDER, migrationsTable: CONSOLE_MIGRATIONS_TABLE };

/**
 * Applies the console's migrations to a database opened by someone else (the
 * embedded gateway's store). `driver` names the client behind it.
 */
export async function migrateConsole(db: unknown, driver: "pglite" | "postgres"): Promise<void> {
  if (driver === "pglite") {
    await migratePglite(db as never, migrationConfig);
    return;
  }
  // Replicas starting together against one PostgreSQL: one migrates, the others wait.
  const nodePg = db as { $client: pg.Pool };
  const client = await nodePg.$client.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
    await migrateNodePg(drizzleNodePg({ client, schema }) as never, migrationConfig);
  } finally {
    await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch(() => undefined);
    client.release();
  }
}

export type ConsoleStoreOptions = { kind: "memory" } | { kind: "pglite"; dataDir: string } | { kind: "postgres"; url: string; poolSize?: number };

/** Opens (and migrates) a store of the console's own: used when the gateway is remote, and by tests. */
export async function openConsoleStore(options: ConsoleStoreOptions): Promise<ConsoleStore> {
  if (options.kind === "postgres") {
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 5 });
    pool.on("error", (error) => process.stderr.write(`${JSON.stringify({ level: "warn", msg: "idle console database connection lost", error: error.message })}\n`));
    const db = drizzleNodePg({ client: pool, schema });
    await migrateConsole(db, "postgres");
    return { db: db as unknown as ConsoleDb, kind: "postgres", close: () => pool.end() };
  }
  let release = () => {};
  let client: PGlite;
  if (options.kind === "pglite") {
    const dir = path.resolve(options.dataDir);
    mkdirSync(dir, { recursive: true });
    release = lockDir(dir);
    try {
      client = await PGlite.create(path.join(dir, "pgdata"));
    } catch (error) {
      release();
      throw error;
    }
  } else {
    client = await PGlite.create();
  }
  const db = drizzlePglite({ client, schema });
  try {
    await migrateConsole(db, "pglite");
  } catch (error) {
    await client.close().catch(() => undefined);
    release();
    throw error;
  }
  return {
    db: db as unknown as ConsoleDb,
    kind: "pglite",
    close: async () => {
      await client.close();
      release();
    },
  };
}

/** Lock files this process holds: a stale file with our pid (a restarted container is pid 1 again) is not ours. */
const HELD_KEY = Symbol.for("stratus.heldConsoleDirs");
const held = ((globalThis as { [HELD_KEY]?: Set<string> })[HELD_KEY] ??= new Set<string>());

/** PGlite allows one client per data dir: an exclusive lock file, taken over from a holder that is gone. */
function lockDir(dir: string): () => void {
  const lockPath = path.join(dir, "console.lock");
  if (held.has(lockPath)) throw new Error(`The console's data dir ${dir} is already open in this process`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, "wx");
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
        throw new Error(`The console's data dir ${dir} is in use by process ${holder}; set DATABASE_URL to share PostgreSQL between replicas.`);
      }
      unlinkSync(lockPath);
    }
  }
  throw new Error(`Could not lock the console's data dir ${dir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const GLOBAL_KEY = Symbol.for("stratus.consoleStore");
type GlobalWithStore = typeof globalThis & { [GLOBAL_KEY]?: Promise<ConsoleDb> };

/** Where the console keeps sessions and sign-in counters in this deployment. */
async function resolveConsoleDb(): Promise<ConsoleDb> {
  const config = env();
  if (!config.CLOUD_API_URL) {
    // The embedded gateway already owns the database (one process per PGlite dir): share it.
    const { embeddedGateway } = await import("@/lib/gateway/runtime");
    const gateway = await embeddedGateway();
    await migrateConsole(gateway.store.db, gateway.store.kind);
    return gateway.store.db as unknown as ConsoleDb;
  }
  const store = config.DATABASE_URL
    ? await openConsoleStore({ kind: "postgres", url: config.DATABASE_URL })
    : await openConsoleStore({ kind: "pglite", dataDir: path.join(config.STRATUS_DATA_DIR, "console") });
  return store.db;
}

/** The process's console database, opened once and kept on globalThis (hot reloads, route bundles). */
export function consoleDb(): Promise<ConsoleDb> {
  const g = globalThis as GlobalWithStore;
  g[GLOBAL_KEY] ??= resolveConsoleDb().catch((error: unknown) => {
    delete g[GLOBAL_KEY];
    throw error;
  });
  return g[GLOBAL_KEY];
}

/** Tests hand the console a store of their own. */
export function setConsoleDbForTests(db: ConsoleDb | undefined): void {
  const g = globalThis as GlobalWithStore;
  if (db) g[GLOBAL_KEY] = Promise.resolve(db);
  else delete g[GLOBAL_KEY];
}
