import type { OpenAPIHono } from "@hono/zod-openapi";
import { Hono, type Context } from "hono";
import { SUPPORTED_METHODS } from "@/lib/client-address";
import { HTTPException } from "hono/http-exception";
import { SCIM_BASE_PATH } from "@/lib/contract/constants";
import { VERSION_PREFIXES } from "@/lib/contract/operations";
import { auditFailures, isMutating } from "./audit";
import type { AppEnv, GatewayDeps } from "./context";
import { errorBody, fromDatabaseError, GatewayError, logCertificateRefusal, RETRY_AFTER_SECONDS } from "./errors";
import { MemoRouter } from "./memo-router";
import { requestFrame } from "./middleware/request-id";
import { verifySignature } from "./middleware/verify-signature";
import { buildOpenApiDocument } from "./openapi";
import { createRouter, findOperation, routedPath } from "./router";
import { registerRoutes } from "./routes";
import { ScimError } from "./routes/scim/resources";
import { createScimService, onScimError } from "./routes/scim/service";
import { isWritable } from "./store/client";
import { errorTrace } from "@/lib/error-detail";


/** gRPC code names for the error status object of operations with a "default" response. */
const RPC_CODES: Record<number, number> = { 400: 3, 401: 16, 403: 7, 404: 5, 413: 3, 500: 13, 503: 14 };

function onError(thrown: Error, c: Context<AppEnv>): Response {
  const startedAt = c.get("startedAt");
  const deadlineMs = c.get("deps")?.requestTimeoutMs;
  const request = startedAt && deadlineMs ? { elapsedMs: Date.now() - startedAt.getTime(), deadlineMs } : undefined;
  const err = fromDatabaseError(thrown, request) ?? thrown;
  const requestId = c.get("requestId") ?? "";
  let status: number;
  let reason: string;
  let message: string;
  if (err instanceof GatewayError) {
    ({ status, reason, message } = err);
  } else if (err instanceof HTTPException) {
    status = err.status === 415 ? 400 : err.status;
    reason = status === 413 ? "payload_too_large" : status === 400 ? "bad_request" : status === 504 ? "timeout" : "error";
    message =
      err.status === 415
        ? "body: Content-Type must be application/json"
        : status === 400
          ? `body: ${err.message || "malformed request"}`
          : err.message || "request refused";
  } else {
    status = 500;
    reason = "internal";
    message = "internal error";
    c.get("deps")?.logger.error("unhandled error", { request_id: requestId, error: errorTrace(err) });
  }
  if (status === 503) logCertificateRefusal(c.get("deps")?.logger, thrown, requestId);
  c.set("errorMessage", message);
  // The store is away (failover, restart): the client may retry, and is told when.
  if (status === 503) c.header("Retry-After", String(RETRY_AFTER_SECONDS));

  // Keep to the statuses each operation declares: an authentication failure on one
  // that declares no 401 is a permissions error; the operations with a "default"
  // response answer anything undeclared with the error status object.
  const op = findOperation(c.req.method, routedPath(c));
  if (op && !op.statuses.has(status)) {
    if (op.hasDefault) {
      return c.json({ code: RPC_CODES[status] ?? 2, message, details: [] }, status as 400);
    }
    if (status === 401 && op.statuses.has(403)) status = 403;
  }
  return c.json(errorBody(status, reason, message, requestId), status as 400);
}

function methodNotAllowed(c: Context<AppEnv>): Response {
  c.set("errorMessage", "method not allowed");
  c.header("Allow", [...SUPPORTED_METHODS].join(", "));
  return c.json(errorBody(405, "method_not_allowed", "method not allowed", c.get("requestId") ?? ""), 405);
}

/** The versioned API: every operation, behind signature verification. */
export function createApi(): OpenAPIHono<AppEnv> {
  const api = createRouter();
  // One layer, not two: only a call that may change something has a failure to file.
  api.use("*", (c, next): Promise<Response | void> =>
    SUPPORTED_METHODS.has(c.req.method)
      ? verifySignature(c, () => (isMutating(c.req.method) ? auditFailures(c, next) : next()))
      : Promise.resolve(methodNotAllowed(c)),
  );
  registerRoutes(api);
  return api;
}

/** Whether a request is for the SCIM service, whose clients read SCIM errors only. */
const forScim = (c: Context<AppEnv>) => c.req.path === SCIM_BASE_PATH || c.req.path.startsWith(`${SCIM_BASE_PATH}/`);

export function createApp(deps: GatewayDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ router: new MemoRouter() });
  // The frame's own failure (a deadline passed) in the protocol of the service asked.
  app.use("*", requestFrame(deps, (error, c) => (forScim(c) ? onScimError(error, c) : onError(error, c))));
  app.onError(onError);
  app.notFound((c) => {
    if (forScim(c)) return onScimError(new ScimError(404, `no endpoint ${c.req.method} ${c.req.path}`), c);
    if (!SUPPORTED_METHODS.has(c.req.method)) return methodNotAllowed(c);
    c.set("errorMessage", "no such operation");
    return c.json(errorBody(404, "not_found", `no operation ${c.req.method} ${new URL(c.req.url).pathname}`, c.get("requestId") ?? ""), 404);
  });

  app.get("/healthz", (c) => c.json({ status: "ok" }));
  // Ready means able to serve writes now: the store answers and its session is not read-only
  // (a standby mid-failover is not ready). change_notices says whether other replicas' writes
  // are heard (read cache on) or being caught up with (cached reads go to the store meanwhile).
  app.get("/readyz", async (c) => {
    const changeNotices = deps.reads.coherent ? "listening" : "reconnecting";
    try {
      if (!(await isWritable(deps.db))) throw new Error("the store is read-only");
      return c.json({ status: "ready", change_notices: changeNotices });
    } catch {
      c.header("Retry-After", String(RETRY_AFTER_SECONDS));
      return c.json({ status: "unavailable", change_notices: changeNotices }, 503);
    }
  });

  // The SCIM 2.0 service provider: its own protocol (bearer tokens of SCIM integrations, SCIM errors).
  app.route(SCIM_BASE_PATH, createScimService() as unknown as Hono<AppEnv>);

  // No error handler of its own: Hono would wrap each of its handlers in one more composition
  // per request to call it (a tenth of a signed read's time). The app's, the same `onError`,
  // answers for them: Hono catches a failure at the handler that threw, so the layers above
  // (auditFailures) still see an answer, not a throw.
  const api = createApi();
  for (const prefix of VERSION_PREFIXES) {
    app.get(`${prefix}/openapi.json`, (c) => c.json(buildOpenApiDocument(api, prefix)));
    app.get(`${prefix}/healthz`, (c) => c.json({ status: "ok" }));
    app.route(prefix, api);
  }
  return app;
}
