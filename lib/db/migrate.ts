import { readFileSync } from "node:fs";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzleNodePg } from "drizzle-orm/node-postgres";
import { migrate as migrateNodePg } from "drizzle-orm/node-postgres/migrator";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type pg from "pg";
import { cancelOnlineBuilds, onlineIndexes, plainStatement } from "./online-indexes";

/**
 * A schema's migrations (Drizzle's migrator over its folder), applied on open: on PostgreSQL under an
 * advisory lock, so replicas starting together apply them once, and in step with the online index
 * builds (online-indexes.ts) of replicas already running.
 */

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
