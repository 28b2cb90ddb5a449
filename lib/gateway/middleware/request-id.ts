import { isUtf8 } from "node:buffer";
import { randomUUID } from "node:crypto";
import type { Context, ErrorHandler, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { AppEnv, GatewayDeps } from "../context";
import { GatewayError } from "../errors";
import { JsonFields } from "../logger";
import { plainHeaders, sealPlainHeaders } from "./plain-headers";

const INCOMING_ID = /^[A-Za-z0-9._-]{8,64}$/;

/**
 * What every request goes through before any route, in one layer (each layer of
 * middleware is two promises and their turns per request; as separate layers these
 * steps cost a gateway call a fifth of its time):
 *
 * - the gateway's dependencies in the context;
 * - headers every answer carries: API answers may hold one-time secrets, so never
 *   cached, sniffed or framed. Given to each answer as it is made (plain-headers.ts),
 *   so the server writes them without reopening the answer;
 * - a request id (an incoming X-Request-Id is kept when sane), echoed in the answer;
 * - the deadline to the first byte of the answer (504, `Deadlines`); a streamed
 *   export keeps streaming after it;
 * - one log line when done: id, method, path, status, duration, user; never headers,
 *   queries or bodies.
 *
 * The body is not read here: `readBody` reads it once the caller is known, so a stranger's
 * upload holds nothing of the gateway's (the server drains or drops what no one read).
 *
 * A failure of the deadline is answered by `onError`, like any other.
 */
export function requestFrame(deps: GatewayDeps, onError: ErrorHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  const timeoutMs = deps.requestTimeoutMs;
  const deadlines = new Deadlines(timeoutMs, () => new HTTPException(504, { message: `the request took longer than ${timeoutMs} ms` }));

  return async (c, next) => {
    const started = performance.now();
    c.set("deps", deps);
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    c.set("requestId", requestId);
    c.set("startedAt", new Date());
    plainHeaders(c, {
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
      "x-request-id": requestId,
    });

    try {
      await deadlines.race(next(), started);
    } catch (error) {
      c.res = await onError(error instanceof Error ? error : new Error(String(error)), c);
    }
    sealPlainHeaders(c);
    logRequest(c, requestId, started);
  };
}


/** One size limit per gateway, made on its first body, not one per request. */
const limits = new WeakMap<GatewayDeps, MiddlewareHandler>();

/**
 * The body, within the size limit (413), read once (the routes read it from Hono's cache of it)
 * and refused when it is not UTF-8 (400: read as it was, its bad bytes would be stored as U+FFFD,
 * data other than sent). Called by the API and the SCIM service after authentication, for
 * methods that carry a body: an unauthenticated caller gets its 401 without the gateway
 * reading, or waiting for, a byte of its upload. A read that fails is the caller's upload
 * breaking off: the limit reads a body of no declared length itself, so a failure of its own
 * (not its 413, not the route's) is that too.
 */
export async function readBody<E extends AppEnv>(c: Context<E>, next: () => Promise<void>): Promise<void> {
  const deps: GatewayDeps = c.var.deps;
  let limitBody = limits.get(deps);
  if (!limitBody) {
    limitBody = bodyLimit({
      maxSize: deps.maxBodyBytes,
      onError: () => {
        throw new GatewayError("payload_too_large", `body: larger than ${deps.maxBodyBytes} bytes`);
      },
    });
    limits.set(deps, limitBody);
  }
  const brokeOff = () => new GatewayError("bad_request", "body: the upload broke off before its end");
  let read = false;
  try {
    await limitBody(c, async () => {
      read = true;
      if (c.req.raw.body) {
        const bytes = await c.req.arrayBuffer().catch(() => Promise.reject(brokeOff()));
        if (!isUtf8(bytes)) throw new GatewayError("bad_request", "body: is not valid UTF-8");
      }
      await next();
    });
  } catch (error) {
    throw read || error instanceof GatewayError ? error : brokeOff();
  }
}

/**
 * The deadlines of the requests in flight, kept by the tick they started in (a tenth of the
 * deadline, at most 100 ms): one timer per tick, not one per request, so a request is answered
 * 504 between its deadline and one tick after it. A timer and its promise per request were a
 * seventh of a signed read's time (`npm run bench`, gateway throughput).
 */
class Deadlines {
  private readonly tickMs: number;
  private tick: { startedAt: number; pending: Set<(error: Error) => void> } | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly late: () => Error,
  ) {
    this.tickMs = Math.max(1, Math.min(100, Math.floor(timeoutMs / 10)));
  }

  /** `work`, or `late()` when work has not settled by the deadline of a request started at `now`. */
  race<T>(work: Promise<T>, now: number): Promise<T> {
    let tick = this.tick;
    if (!tick || now - tick.startedAt >= this.tickMs) {
      const pending = new Set<(error: Error) => void>();
      tick = this.tick = { startedAt: now, pending };
      setTimeout(() => {
        for (const reject of pending) reject(this.late());
        pending.clear();
      }, this.timeoutMs + this.tickMs).unref();
    }
    const { pending } = tick;
    return new Promise<T>((resolve, reject) => {
      pending.add(reject);
      work.then(
        (value) => {
          pending.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          pending.delete(reject);
          reject(error);
        },
      );
    });
  }
}

function logRequest(c: Context<AppEnv>, requestId: string, started: number): void {
  const status = c.res.status;
  // Written out: the request id is a UUID or passed INCOMING_ID, the numbers are numbers, and
  // every other string goes through JSON.stringify (the same line JSON.stringify of the object gives).
  const userId = c.get("caller")?.userId;
  const error = status >= 400 ? c.get("errorMessage") : undefined;
  const fields = new JsonFields(
    `{"request_id":"${requestId}","method":${JSON.stringify(c.req.method)},"path":${JSON.stringify(c.req.path)},"status":${status},` +
      `"duration_ms":${Math.round((performance.now() - started) * 10) / 10}` +
      `${userId === undefined ? "" : `,"user_id":${JSON.stringify(userId)}`}${error === undefined ? "" : `,"error":${JSON.stringify(error)}`}}`,
  );
  const logger = c.get("deps").logger;
  if (status >= 500) logger.error("request", fields);
  else logger.info("request", fields);
}
