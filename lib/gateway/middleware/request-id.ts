import { randomUUID } from "node:crypto";
import type { Context, ErrorHandler, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { AppEnv, GatewayDeps } from "../context";
import { GatewayError } from "../errors";

const INCOMING_ID = /^[A-Za-z0-9._-]{8,64}$/;

/**
 * What every request goes through before any route, in one layer (each layer of
 * middleware is two promises and their turns per request; as separate layers these
 * steps cost a gateway call a fifth of its time):
 *
 * - the gateway's dependencies in the context;
 * - headers every answer carries: API answers may hold one-time secrets, so never
 *   cached, sniffed or framed. Set before the answer exists, so every answer made
 *   through the context carries them without reopening it (which would cost the
 *   server its fast path for the answer);
 * - a request id (an incoming X-Request-Id is kept when sane), echoed in the answer;
 * - the body size limit (413), for methods that carry a body;
 * - the deadline to the first byte of the answer (504); a streamed export keeps
 *   streaming after it;
 * - one log line when done: id, method, path, status, duration, user; never headers,
 *   queries or bodies.
 *
 * A failure of the limit or the deadline is answered by `onError`, like any other.
 */
export function requestFrame(deps: GatewayDeps, onError: ErrorHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  const limitBody = bodyLimit({
    maxSize: deps.maxBodyBytes,
    onError: () => {
      throw new GatewayError("payload_too_large", `body: larger than ${deps.maxBodyBytes} bytes`);
    },
  });
  const timeoutMs = deps.requestTimeoutMs;
  const late = () => new HTTPException(504, { message: `the request took longer than ${timeoutMs} ms` });

  return async (c, next) => {
    const started = performance.now();
    c.set("deps", deps);
    c.header("Cache-Control", "no-store");
    c.header("X-Content-Type-Options", "nosniff");
    c.header("X-Frame-Options", "DENY");
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    c.set("requestId", requestId);
    c.set("startedAt", new Date());
    c.header("X-Request-Id", requestId);

    let timer: NodeJS.Timeout | undefined;
    try {
      const method = c.req.method;
      // GET and HEAD carry no body to limit; asking for one would build the full Request
      // object the server otherwise spares.
      const work = method === "GET" || method === "HEAD" ? next() : limitBody(c, next);
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(late()), timeoutMs);
      });
      await Promise.race([work, deadline]);
    } catch (error) {
      c.res = await onError(error instanceof Error ? error : new Error(String(error)), c);
    } finally {
      clearTimeout(timer);
    }
    logRequest(c, requestId, started);
  };
}

function logRequest(c: Context<AppEnv>, requestId: string, started: number): void {
  const status = c.res.status;
  const fields = {
    request_id: requestId,
    method: c.req.method,
    path: c.req.path,
    status,
    duration_ms: Math.round((performance.now() - started) * 10) / 10,
    user_id: c.get("caller")?.userId,
    ...(status >= 400 ? { error: c.get("errorMessage") } : {}),
  };
  const logger = c.get("deps").logger;
  if (status >= 500) logger.error("request", fields);
  else logger.info("request", fields);
}
