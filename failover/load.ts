import { authorizationHeader, sign, signedHeaders, UPSTREAM_TIMESTAMP_HEADER } from "@/lib/signing";

/** Signed calls to the gateways while the formation fails over, each one recorded. */

export interface Credentials {
  accessKeyId: string;
  secretKey: string;
}

export interface Outcome {
  gateway: string;
  kind: "create" | "rename" | "get" | "list" | "readyz";
  /** 0: no answer before the client gave up (a hang past the gateway's deadline). */
  status: number;
  retryAfter: string | null;
  start: number;
  end: number;
  error?: string;
  /** create/rename: the project's id and the name written. */
  id?: string;
  name?: string;
  /** readyz: what the gateway says of its change listener. */
  changeNotices?: string;
}

export interface Target {
  name: string;
  port: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function call(
  target: Target,
  credentials: Credentials,
  method: string,
  pathAndQuery: string,
  body: unknown,
  giveUpMs: number,
  /** Headers signed before (a retry sends the first attempt's again); by default, signed now. */
  signed?: Record<string, string>,
): Promise<{ status: number; retryAfter: string | null; json: unknown; error?: string }> {
  const url = `http://127.0.0.1:${target.port}/v1${pathAndQuery}`;
  try {
    const res = await fetch(url, {
      method,
      headers: { ...(signed ?? signedHeaders(credentials, { method, url })), ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(giveUpMs),
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, retryAfter: res.headers.get("retry-after"), json };
  } catch (error) {
    return { status: 0, retryAfter: null, json: null, error: (error as Error).message };
  }
}

export interface LoadOptions {
  targets: Target[];
  credentials: Credentials;
  organizationId: string;
  workersPerTarget: number;
  /** The client gives up on an answer after this long: past the gateways' own deadline. */
  giveUpMs: number;
  /** Upper bound of calls per worker, whatever happens. */
  maxCallsPerWorker: number;
  stopped: () => boolean;
  out: Outcome[];
}

/**
 * One worker: creates a project, then renames it or reads it back, and lists the
 * organization's projects now and then. Never retries a write (each is signed
 * anew, so a retry could not tell a lost write from a duplicated one: the retrying
 * writer below resends the same signature); after a 503 it waits a moment, as a
 * client honouring Retry-After would, but briefly, to time the switch finely.
 */
async function worker(options: LoadOptions, target: Target, w: number): Promise<void> {
  const { credentials, organizationId, giveUpMs, out } = options;
  let refused = false;
  const record = (kind: Outcome["kind"], start: number, r: Awaited<ReturnType<typeof call>>, extra: Partial<Outcome> = {}) => {
    if (r.status !== 200) refused = true;
    out.push({ gateway: target.name, kind, status: r.status, retryAfter: r.retryAfter, start, end: Date.now(), error: r.error, ...extra });
    return r;
  };
  for (let i = 0; i < options.maxCallsPerWorker && !options.stopped(); i++) {
    const name = `fo-${target.name}-${w}-${i}`;
    let start = Date.now();
    const created = await call(target, credentials, "POST", "/organizations/projects", { organization_id: organizationId, name }, giveUpMs);
    const id = (created.json as { project?: { id?: string } } | null)?.project?.id;
    record("create", start, created, { name, id });
    if (created.status === 200 && id) {
      start = Date.now();
      if (i % 2 === 0) {
        const renamed = `${name}-r`;
        record("rename", start, await call(target, credentials, "PUT", `/organizations/projects?project_id=${id}`, { name: renamed }, giveUpMs), { id, name: renamed });
      } else {
        record("get", start, await call(target, credentials, "GET", `/organizations/projects/${id}`, undefined, giveUpMs), { id });
      }
    }
    if (i % 3 === 0) {
      start = Date.now();
      record("list", start, await call(target, credentials, "GET", `/organizations/projects?org_id=${organizationId}&skip_loading_project_resources=true`, undefined, giveUpMs));
    }
    if (refused) await sleep(200);
    refused = false;
  }
}

/** Asks each gateway's /readyz every quarter second. */
async function readiness(options: LoadOptions, target: Target): Promise<void> {
  for (let i = 0; i < options.maxCallsPerWorker && !options.stopped(); i++) {
    const start = Date.now();
    try {
      const res = await fetch(`http://127.0.0.1:${target.port}/readyz`, { signal: AbortSignal.timeout(options.giveUpMs) });
      const body = (await res.json()) as { change_notices?: string };
      options.out.push({ gateway: target.name, kind: "readyz", status: res.status, retryAfter: res.headers.get("retry-after"), start, end: Date.now(), changeNotices: body.change_notices });
    } catch (error) {
      options.out.push({ gateway: target.name, kind: "readyz", status: 0, retryAfter: null, start, end: Date.now(), error: (error as Error).message });
    }
    await sleep(250);
  }
}

const RETRY_FOR_MS = 90_000;

/** One write as a retrying client made it: every attempt's status, the same signature each time. */
export interface RetriedWrite {
  gateway: string;
  name: string;
  statuses: number[];
  /** The last answer's message (a 401 says why). */
  message?: string;
}

/**
 * Signed as the upstream's Go client signs: a whole-second timestamp in its own header, so two calls
 * to one path in one second carry one signature (the replay guard tells them apart by the body).
 */
function goClientHeaders(credentials: Credentials, method: string, path: string): Record<string, string> {
  const timestamp = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const signature = sign(credentials.secretKey, { method, path: `/v1${path}`, query: "", timestamp });
  return { Authorization: authorizationHeader(credentials.accessKeyId, signature), [UPSTREAM_TIMESTAMP_HEADER]: timestamp };
}

/**
 * A client that retries as the upstream's Terraform provider does (go-retryablehttp): after a 503 or
 * no answer it sends the same request again, the same signature and body, until an answer that is
 * neither. Each write's attempts are recorded in `retried`.
 */
async function retryingWriter(options: LoadOptions, target: Target, retried: RetriedWrite[]): Promise<void> {
  const { credentials, organizationId, giveUpMs } = options;
  for (let i = 0; i < options.maxCallsPerWorker && !options.stopped(); i++) {
    const write: RetriedWrite = { gateway: target.name, name: `fo-retried-${target.name}-${i}`, statuses: [] };
    retried.push(write);
    const headers = goClientHeaders(credentials, "POST", "/organizations/projects");
    // Well inside the signature's window (STRATUS_SIGNATURE_SKEW_SECONDS, 300 s by default).
    const retryUntil = Date.now() + RETRY_FOR_MS;
    for (;;) {
      const r = await call(target, credentials, "POST", "/organizations/projects", { organization_id: organizationId, name: write.name }, giveUpMs, headers);
      write.statuses.push(r.status);
      write.message = (r.json as { message?: string } | null)?.message;
      if ((r.status !== 503 && r.status !== 0) || Date.now() > retryUntil) break;
      await sleep(200);
    }
  }
}

export function runLoad(options: LoadOptions & { retried?: RetriedWrite[] }): Promise<void> {
  const tasks: Array<Promise<void>> = [];
  for (const target of options.targets) {
    for (let w = 0; w < options.workersPerTarget; w++) tasks.push(worker(options, target, w));
    tasks.push(readiness(options, target));
    if (options.retried) tasks.push(retryingWriter(options, target, options.retried));
  }
  return Promise.all(tasks).then(() => undefined);
}
