import "server-only";
import path from "node:path";
import { closeOnExit } from "@/lib/close-on-exit";
import { migrateDatabase } from "@/lib/db/migrate";
import { openDatabase, type OpenedStore, type SchemaDb, type StoreOptions } from "@/lib/db/open";
import { env } from "@/lib/env";
import * as schema from "./schema";

export type ConsoleSchema = typeof schema;
/** PGlite or node-postgres, typed with the console's tables only. */
export type ConsoleDb = SchemaDb<ConsoleSchema>;
export type ConsoleStore = OpenedStore<ConsoleSchema>;
export type ConsoleStoreOptions = StoreOptions;

export const CONSOLE_MIGRATIONS_FOLDER = path.join(process.cwd(), "lib/console/store/migrations");
/** Kept apart from the gateway's __drizzle_migrations: the two schemas migrate independently. */
export const CONSOLE_MIGRATIONS_TABLE = "__console_migrations";
const CONSOLE_MIGRATIONS = { folder: CONSOLE_MIGRATIONS_FOLDER, table: CONSOLE_MIGRATIONS_TABLE, lockId: 727_411_101 };

/**
 * Applies the console's migrations to a database opened by someone else (the
 * embedded gateway's store). `driver` names the client behind it.
 */
export function migrateConsole(db: unknown, driver: "pglite" | "postgres"): Promise<void> {
  return migrateDatabase(db, driver, CONSOLE_MIGRATIONS);
}

/** Opens (and migrates) a store of the console's own: used when the gateway is remote, and by tests. */
export function openConsoleStore(options: ConsoleStoreOptions): Promise<ConsoleStore> {
  return openDatabase(options, schema, CONSOLE_MIGRATIONS, { lockName: "console.lock" });
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
  closeOnExit("the console's store", () => store.close());
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
