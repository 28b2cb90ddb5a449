import { existsSync } from "node:fs";
import { sql } from "drizzle-orm";
import type { Hono } from "hono";
import { closeOnExit } from "@/lib/close-on-exit";
import { inBackground } from "@/lib/db/background";
import { ReadCache } from "@/lib/db/read-cache";
import { pacer, waitedFor } from "@/lib/server-load";
import { env } from "@/lib/env";
import { errorDetail } from "@/lib/error-detail";
import { createApp } from "./app";
import type { AppEnv, GatewayDeps } from "./context";
import { loadMasterKey } from "./crypto";
import { createLogger, type Logger } from "./logger";
import { confirmMasterKey } from "./master-key-check";
import { scheduleRetention, type RetentionPolicy } from "./retention";
import { demoCredentialsFile, recoverDemoCredentials, seedDemo, writeDemoCredentials, type DemoCredentials } from "./seed";
import { isEmpty, openStore, type Database, type Store, type StoreOptions } from "./store/client";

export interface Gateway {
  app: Hono<AppEnv>;
  store: Store;
  deps: GatewayDeps;
  close(): Promise<void>;
}

export interface GatewayOptions {
  store?: StoreOptions;
  dataDir?: string;
  masterKey?: Buffer;
  seed?: boolean;
  logger?: Logger;
  skewSeconds?: number;
  maxBodyBytes?: number;
  requestTimeoutMs?: number;
  trustedProxyHops?: number;
  ssoLoopbackIssuers?: boolean;
  /** Days of audit entries and usage rows kept (deleted on a timer); default from STRATUS_*_RETENTION_DAYS, unset keeps all. */
  retention?: RetentionPolicy;
  /** Called once the store is open and migrated, before the demo organization is written. */
  onStoreOpen?: () => void;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Opens the store (migrating it), writes the demo organization when empty, builds the app. */
export async function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const config = env();
  const dataDir = options.dataDir ?? config.STRATUS_DATA_DIR;
  const logger = options.logger ?? createLogger(config.STRATUS_LOG_LEVEL);
  const requestTimeoutMs = options.requestTimeoutMs ?? config.STRATUS_REQUEST_TIMEOUT_SECONDS * 1000;
  const given: StoreOptions = options.store ?? (config.DATABASE_URL ? { kind: "postgres", url: config.DATABASE_URL } : { kind: "pglite", dataDir });
  // On PostgreSQL no statement outlives the request deadline: a request answered 504 leaves nothing
  // running on the server (a search matching nothing, a lock waited on), holding a pooled connection.
  const storeOptions: StoreOptions = given.kind === "postgres" ? { statementTimeoutMs: requestTimeoutMs, ...given } : given;
  const masterKey = options.masterKey ?? loadMasterKey(config.STRATUS_MASTER_KEY, dataDir);
  const store = await openStore(storeOptions);
  // Whatever fails from here on (the demo's seed on a full disk, a failover during it) closes the store again: left
  // open, its PGlite data dir stays held by this process (the next start is refused) and its PostgreSQL pool, listener
  // and timers live on, one more set for every attempt.
  try {
    // Before anything is sealed or opened with it: a replica given another key refuses to start, naming the variable.
    await confirmMasterKey(store.db, masterKey);
    options.onStoreOpen?.();
    // Production stores start empty unless the demo is asked for (STRATUS_SEED_DEMO=1).
    const seed = options.seed ?? (config.STRATUS_SEED_DEMO ? config.STRATUS_SEED_DEMO === "1" : config.NODE_ENV !== "production");
    const credentials = seed ? await seedIfEmpty(store.db, masterKey) : null;
    if (credentials) {
      // Written at once after the seed's commit: a process ended later (in the pass below) leaves no demo without them.
      const file = writeDemoCredentials(dataDir, credentials);
      // The keys go to the file (mode 0600) only: a log line is read by more people than the data dir.
      logger.info("demo organization created", { organization_id: credentials.organization_id, credentials_file: file });
      // The demo's tens of thousands of rows, analyzed before the first page reads them (PGlite: no autovacuum of its own).
      await store.vacuumDue?.().catch((error: unknown) => logger.warn("autovacuum pass failed", { error: error instanceof Error ? error.message : String(error) }));
    } else if (seed && !existsSync(demoCredentialsFile(dataDir))) {
      // Seeded before, its credentials file gone (a process ended between the two, or the file deleted): from the store.
      // Only a convenience: a start does not fail on it (a data dir it cannot write, a key it cannot open).
      try {
        const recovered = await recoverDemoCredentials(store.db, masterKey);
        if (recovered) logger.info("demo credentials recovered from the store", { organization_id: recovered.organization_id, credentials_file: writeDemoCredentials(dataDir, recovered) });
      } catch (error) {
        logger.warn("demo credentials not recovered from the store", { error: errorDetail(error) });
      }
    }
    const deps: GatewayDeps = {
      db: store.db,
      reads: new ReadCache(store.changes),
      masterKey,
      logger,
      skewSeconds: options.skewSeconds ?? config.STRATUS_SIGNATURE_SKEW_SECONDS,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      requestTimeoutMs,
      trustedProxyHops: options.trustedProxyHops ?? config.STRATUS_TRUSTED_PROXY_HOPS,
      consoleChannelKey: config.STRATUS_CONSOLE_CHANNEL_KEY,
      ssoLoopbackIssuers: options.ssoLoopbackIssuers ?? config.STRATUS_SSO_LOOPBACK_ISSUERS === "1",
    };
    const app = createApp(deps);
    // Last: nothing after it can fail, so its timer is never left running by a start that did.
    const retention = scheduleRetention(
      store.db,
      options.retention ?? { auditDays: config.STRATUS_AUDIT_RETENTION_DAYS, usageDays: config.STRATUS_USAGE_RETENTION_DAYS },
      logger,
    );
    return {
      app,
      store,
      deps,
      close: async () => {
        await retention.stop();
        await store.close();
      },
    };
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}

const SEED_LOCK_ID = 727_411_002;

/** Seeds the demo organization unless the store has data; replicas starting together seed once. */
async function seedIfEmpty(db: Database, masterKey: Buffer): Promise<DemoCredentials | null> {
  return db.transaction(async (txRaw) => {
    const tx = txRaw as unknown as Database;
    // Another replica's seed may hold the lock for longer than a request's deadline (the pool's statement_timeout).
    await tx.execute(sql`set local statement_timeout = 0`);
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK_ID})`);
    if (!(await isEmpty(tx))) return null;
    // Written while the server may already answer (instrumentation.ts): it gives way to requests,
    // between its steps and before each statement.
    const pace = pacer();
    return inBackground(pace.statement, () => seedDemo(tx, masterKey, { pace: pace.step }));
  });
}

const GLOBAL_KEY = Symbol.for("stratus.embeddedGateway");
const READY_KEY = Symbol.for("stratus.embeddedGatewayReady");
const OPENED_KEY = Symbol.for("stratus.embeddedGatewayOpened");
const FAILED_KEY = Symbol.for("stratus.embeddedGatewayFailed");
type GlobalWithGateway = typeof globalThis & {
  [GLOBAL_KEY]?: Promise<Gateway>;
  [READY_KEY]?: boolean;
  [OPENED_KEY]?: Promise<void>;
  /** When the last start failed, and why: a state check does not start again sooner than RETRY_START_MS after it. */
  [FAILED_KEY]?: { at: number; reason: string };
};

/** How long after a failed start a state check (the sign-in page's, every 2 s per open tab) waits to start again. */
export const RETRY_START_MS = 15_000;

/**
 * The gateway embedded in the console's server: one per process, kept on
 * globalThis so hot reloads and route modules share the single PGlite client.
 */
export function embeddedGateway(): Promise<Gateway> {
  const g = globalThis as GlobalWithGateway;
  // A caller that has to wait (the demo organization still being written) says so: the writing
  // then stops giving way to requests, since one of them waits for it.
  return g[READY_KEY] ? startEmbeddedGateway() : waitedFor(startEmbeddedGateway());
}

/** Starts the embedded gateway once per process, or gives the start under way. */
function startEmbeddedGateway(): Promise<Gateway> {
  const g = globalThis as GlobalWithGateway;
  let opened: () => void = () => undefined;
  if (!g[GLOBAL_KEY]) g[OPENED_KEY] = new Promise<void>((resolve) => (opened = resolve));
  g[GLOBAL_KEY] ??= startGateway({ onStoreOpen: opened }).then(
    (gateway) => {
      g[READY_KEY] = true;
      closeOnExit("the embedded gateway's store", () => gateway.close());
      return gateway;
    },
    (error: unknown) => {
      delete g[GLOBAL_KEY];
      g[FAILED_KEY] = { at: Date.now(), reason: errorDetail(error) };
      throw error;
    },
  );
  return g[GLOBAL_KEY];
}

/**
 * Starts the embedded gateway and waits until its store is open (on a fresh PGlite data dir that
 * includes initdb, a couple of seconds of synchronous work), not for the demo organization: the
 * server then starts answering only once no request would stall behind that work.
 */
export async function openEmbeddedGateway(onFailure: (error: unknown) => void): Promise<void> {
  // Not a request waiting for the start (embeddedGateway): the demo organization still gives way to requests.
  const started = startEmbeddedGateway();
  started.catch(onFailure);
  const g = globalThis as GlobalWithGateway;
  await Promise.race([g[OPENED_KEY], started]).catch(() => undefined);
}

/**
 * Whether the embedded gateway of this process is up ("ready"), still opening its store and writing the demo
 * organization ("starting": started now if it was not), or failed to start within the last RETRY_START_MS
 * ("failed", with why), without waiting for it. A failed start is tried again by the first check after that, each
 * failure logged once: not once per check, every check starting it anew (the store opened and migrated again).
 */
export function embeddedGatewayState(now = Date.now()): { state: "ready" | "starting" } | { state: "failed"; reason: string } {
  const g = globalThis as GlobalWithGateway;
  if (g[READY_KEY]) return { state: "ready" };
  const failed = g[FAILED_KEY];
  if (!g[GLOBAL_KEY] && failed && now - failed.at < RETRY_START_MS) return { state: "failed", reason: failed.reason };
  const starting = !g[GLOBAL_KEY];
  startEmbeddedGateway().then(
    () => {
      g[READY_KEY] = true;
      delete g[FAILED_KEY];
    },
    (error: unknown) => {
      if (starting) console.error(`the embedded gateway did not start: ${errorDetail(error)}`);
    },
  );
  return { state: "starting" };
}
