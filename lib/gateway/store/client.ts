import { existsSync } from "node:fs";
import path from "node:path";
import { sql, type ExtractTablesWithRelations } from "drizzle-orm";
import type { PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { openDatabase, type OpenedStore, type SchemaDb, type StoreOptions } from "@/lib/db/open";
import * as schema from "./schema";

export type { StoreOptions };
export type Schema = typeof schema;
/** One type for PGlite and node-postgres databases, and for transactions on either. */
export type Database = SchemaDb<Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Store = OpenedStore<Schema>;

export const MIGRATIONS_FOLDER = path.join(process.cwd(), "lib/gateway/store/migrations");

/** The gateway's store, migrated; PGlite data dirs are locked to this process. */
export function openStore(options: StoreOptions): Promise<Store> {
  return openDatabase(options, schema, { folder: MIGRATIONS_FOLDER, lockId: 727_411_001 }, { listenForChanges: true });
}

export function dataDirExists(dir: string): boolean {
  return existsSync(path.join(path.resolve(dir), "pgdata"));
}

/** The rows of a `db.execute` result: node-postgres and PGlite answer `{ rows }`, some drivers the array itself. */
export function resultRows<T>(result: unknown): T[] {
  return (result as { rows?: T[] }).rows ?? (result as T[]);
}

export async function isEmpty(db: Database): Promise<boolean> {
  const first = resultRows<{ n: number }>(await db.execute(sql`select count(*)::int as n from organizations`))[0];
  return (first?.n ?? 0) === 0;
}

/** Whether the store answers and its session takes writes (a standby mid-failover does not); throws when it does not answer. */
export async function isWritable(db: Database): Promise<boolean> {
  const rows = resultRows<{ read_only: string }>(await db.execute(sql`select current_setting('transaction_read_only') as read_only`));
  return rows[0]?.read_only === "off";
}
