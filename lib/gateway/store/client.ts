import { closeSync, existsSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql, type ExtractTablesWithRelations } from "drizzle-orm";
import { migrate as migrateNodePg } from "drizzle-orm/node-postgres/migrator";
import { drizzle as drizzleNodePg } from "drizzle-orm/node-postgres";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import * as schema from "./schema";

export type Schema = typeof schema;
/** One type for PGlite and node-postgres databases, and for transactions on either. */
export type Database = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

export interface Store {
  db: Database;
  kind: "pglite" | "postgres";
  close(): Promise<void>;
}

export type StoreOptions =
  | { kind: "memory" }
  | { kind: "pglite"; dataDir: string }
  | { kind: "postgres"; url: string; poolSize?: number };

export const MIGRATIONS_FOLDER = path.join(process.cwd(), "lib/gateway/store/migrations");

/** Serialises migrations of replicas that start together against one PostgreSQL. */
const MIGRATION_LOCK_ID = 727_411_001;

export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.kind === "postgres") {
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10 });
    // An idle client losing its connection (server restart, failover) must not crash the process:
    // the pool drops it and the next query opens a new one.
    pool.on("error", (error) => process.stderr.write(`${JSON.stringify({ level: "warn", msg: "idle database connection lost", error: error.message })}\n`));
    const db = drizzleNodePg({ client: pool, schema });
    const client = await pool.connect();
    try {
      await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
      await migrateNodePg(drizzleNodePg({ client, schema }) as never, { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch(() => undefined);
      client.release();
    }
    return { db: db as unknown as Database, kind: "postgres", close: () => pool.end() };
  }

  let releaseLock = () => {};
  let client: PGlite;
  if (options.kind === "pglite") {
    const dir = path.resolve(options.dataDir);
    mkdirSync(dir, { recursive: true });
    releaseLock = lockDataDir(dir);
    try {
      client = await PGlite.create(path.join(dir, "pgdata"));
    } catch (error) {
      releaseLock();
      throw error;
    }
  } else {
    client = await PGlite.create();
  }
  const db = drizzlePglite({ client, schema });
  try {
    await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
  } catch (error) {
    await client.close().catch(() => undefined);
    releaseLock();
    throw error;
  }
  return {
    db: db as unknown as Database,
    kind: "pglite",
    close: async () => {
      await client.close();
      releaseLock();
    },
  };
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
function lockDataDir(dir: string): () => void {
  const lockPath = path.join(dir, "stratus.lock");
  if (held.has(lockPath)) {
    throw new Error(
      `The data dir ${dir} is already open in this process (${process.pid}). PGlite allows one client per data dir: ` +
        "share the open store instead of opening it again, or use another STRATUS_DATA_DIR.",
    );
  }
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

export function dataDirExists(dir: string): boolean {
  return existsSync(path.join(path.resolve(dir), "pgdata"));
}

export async function isEmpty(db: Database): Promise<boolean> {
  const rows = await db.execute<{ n: number }>(sql`select count(*)::int as n from organizations`);
  const first = (rows as unknown as { rows?: Array<{ n: number }> }).rows?.[0] ?? (rows as unknown as Array<{ n: number }>)[0];
  return (first?.n ?? 0) === 0;
}
