import { randomUUID } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context";

const INCOMING_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** Gives every request an id (an incoming X-Request-Id is kept when sane) and logs it when done. */
export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const incoming = c.req.header("x-request-id");
  const requestId = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
  c.set("requestId", requestId);
  c.set("startedAt", new Date());
  const started = performance.now();
  c.header("X-Request-Id", requestId);
  await next();
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
};
