import { randomBytes } from "node:crypto";
import { asc, gt, max } from "drizzle-orm";
import pg from "pg";
import { operationPath, operations, type OperationId, type OperationParams } from "@/lib/contract/operations";
import { signedHeaders } from "@/lib/signing";
import { createLogger } from "./logger";
import { startGateway, type Gateway, type GatewayOptions } from "./runtime";
import type { DemoCredentials, DemoUser } from "./seed";
import { seedDemo } from "./seed";
import type { StoreOptions } from "./store/client";
import { auditLog } from "./store/schema";

export type Who = "owner" | "member" | "auditor" | "outsider";

export interface CallOptions {
  /** Query pairs, in order; repeated names allowed. */
  query?: Array<[string, string]> | Record<string, string>;
  body?: unknown;
  /** Raw body text, sent as JSON content type unless headers say otherwise. */
  rawBody?: string;
  headers?: Record<string, string>;
  prefix?: "/v1" | "/v1alpha5";
  /** Sign with these instead of the user's own key. */
  credentials?: { accessKeyId: string; secretKey: string };
  now?: Date;
}

export interface OpOptions extends CallOptions {
  /** The operation's path parameters by name (each filled in as one escaped segment). */
  params?: Record<string, string>;
}

/**
 * An operation's path from the operations table, without the version prefix (TestGateway.call
 * adds it): opPath("getProject", { project_id: id }) is /organizations/projects/<id>.
 */
export function opPath<Id extends OperationId>(id: Id, ...[params]: keyof OperationParams<Id> extends never ? [] : [OperationParams<Id>]): string {
  return pathOf(id, params);
}

function pathOf(id: OperationId, params: Record<string, string> = {}): string {
  const template = operations[id].path;
  const unknown = Object.keys(params).filter((name) => !template.includes(`{${name}}`));
  if (unknown.length > 0) throw new Error(`${id}: ${template} has no path parameter ${unknown.join(", ")}`);
  const fill = operationPath as (id: OperationId, params: Record<string, string>) => string;
  return fill(id, params).slice("/v1".length);
}

export interface TestGateway {
  gateway: Gateway;
  demo: DemoCredentials;
  /** A request signed as the given demo user, through the app's fetch handler. */
  call(who: Who | DemoUser, method: string, path: string, options?: CallOptions): Promise<Response>;
  /** Same, returning status and parsed JSON. */
  json<T = Record<string, unknown>>(who: Who | DemoUser, method: string, path: string, options?: CallOptions): Promise<{ status: number; body: T }>;
  /** An operation of the table by its operationId (method and path from lib/contract/operations.ts). */
  op(who: Who | DemoUser, id: OperationId, options?: OpOptions): Promise<Response>;
  /** Same, returning status and parsed JSON. */
  opJson<T = Record<string, unknown>>(who: Who | DemoUser, id: OperationId, options?: OpOptions): Promise<{ status: number; body: T }>;
  /** The id of the demo outsider's own organization (Globex), also once the outsider has joined the demo organization. */
  outsiderOrganizationId(): Promise<string>;
  /** What `call` returns, and the audit-log entries written while it ran, in the order written. */
  audited<T>(call: () => Promise<T>): Promise<{ result: T; entries: Array<typeof auditLog.$inferSelect> }>;
  close(): Promise<void>;
}

export function buildUrl(prefix: string, path: string, query?: CallOptions["query"]): URL {
  const url = new URL(`http://gateway.test${prefix}${path}`);
  const pairs = Array.isArray(query) ? query : Object.entries(query ?? {});
  for (const [k, v] of pairs) url.searchParams.append(k, v);
  return url;
}

/**
 * Waits out the last `marginMs` before midnight UTC, if the clock is in them. The demo data runs to
 * the day it is seeded, and the usage and cost routes default to the 30 days through today: a file
 * that seeds before midnight and asks after it finds today empty. Such a file calls this before it
 * seeds, with a margin longer than the file takes.
 */
export async function clearOfMidnightUtc(marginMs = 300_000, now = Date.now()): Promise<number> {
  const untilMidnight = 86_400_000 - (now % 86_400_000);
  const wait = untilMidnight < marginMs ? untilMidnight + 1_000 : 0;
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  return wait;
}

/**
 * A fresh, empty store: in-memory PGlite, or, when TEST_DATABASE_URL names a
 * PostgreSQL server, a new database on it that is dropped on close.
 */
export async function freshStoreOptions(): Promise<{ store: StoreOptions; drop: () => Promise<void> }> {
  const admin = process.env.TEST_DATABASE_URL;
  if (!admin) return { store: { kind: "memory" }, drop: async () => {} };
  const name = `stratus_test_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    store: { kind: "postgres", url: url.toString(), poolSize: 5 },
    drop: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** A gateway on a fresh store with the demo organization. One per test file. */
export async function createTestGateway(options: Pick<GatewayOptions, "requestTimeoutMs"> = {}): Promise<TestGateway> {
  const masterKey = randomBytes(32);
  const fresh = await freshStoreOptions();
  const gateway = await startGateway({
    ...options,
    store: fresh.store,
    masterKey,
    seed: false,
    logger: createLogger("silent"),
    dataDir: "/nonexistent",
  });
  const demo = await seedDemo(gateway.store.db, masterKey);
  const call: TestGateway["call"] = async (who, method, path, options = {}) => {
    const user = typeof who === "string" ? demo[who] : who;
    const url = buildUrl(options.prefix ?? "/v1", path, options.query);
    const credentials = options.credentials ?? { accessKeyId: user.access_key_id, secretKey: user.secret_key };
    const headers: Record<string, string> = { ...signedHeaders(credentials, { method, url }, options.now), ...options.headers };
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) {
      headers["content-type"] = "application/json";
    }
    return gateway.app.request(url.toString(), { method, headers, body });
  };
  const json: TestGateway["json"] = async (who, method, path, options) => {
    const res = await call(who, method, path, options);
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as never };
  };
  const route = (id: OperationId, options: OpOptions = {}): [string, string, CallOptions] => {
    const { params, ...rest } = options;
    return [operations[id].method.toUpperCase(), pathOf(id, params), rest];
  };
  return {
    gateway,
    demo,
    call,
    json,
    op: (who, id, options) => call(who, ...route(id, options)),
    opJson: (who, id, options) => json(who, ...route(id, options)),
    outsiderOrganizationId: async () => {
      const { body } = await json<{ items: Array<{ id: string }> }>("outsider", ...route("getOrganizations"));
      const own = body.items.find((o) => o.id !== demo.organization_id);
      if (!own) throw new Error("the demo outsider belongs to no organization of their own");
      return own.id;
    },
    audited: async (run) => {
      const db = gateway.store.db;
      const [last] = await db.select({ seq: max(auditLog.seq) }).from(auditLog);
      const result = await run();
      const entries = await db
        .select()
        .from(auditLog)
        .where(gt(auditLog.seq, Number(last?.seq ?? 0)))
        .orderBy(asc(auditLog.seq));
      return { result, entries };
    },
    close: async () => {
      await gateway.close();
      await fresh.drop();
    },
  };
}
