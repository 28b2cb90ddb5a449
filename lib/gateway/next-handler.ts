import { randomUUID } from "node:crypto";
import { trustedPeerAddress } from "@/lib/client-address";
import { env } from "@/lib/env";
import { errorTrace } from "@/lib/error-detail";
import { errorBody, isStoreUnavailable, RETRY_AFTER_SECONDS } from "./errors";
import type { GatewayBindings } from "./origin";
import { scimErrorBody } from "./routes/scim/resources";
import { embeddedGateway } from "./runtime";

/**
 * An answer made here, before the gateway runs: in the gateway's own error shape, or a SCIM error on /scim/v2 (an
 * identity provider reads no other).
 */
function failure(request: Request, status: number, reason: string, message: string, errorId = "", headers: Record<string, string> = {}): Response {
  const scim = new URL(request.url).pathname.startsWith("/scim/");
  const body = scim ? scimErrorBody(status, message) : errorBody(status, reason, message, errorId);
  return new Response(JSON.stringify(body), { status, headers: { "content-type": scim ? "application/scim+json" : "application/json", "cache-control": "no-store", ...headers } });
}

/** Route handlers that serve the embedded gateway from the Next.js server: a caller from outside is the API's, at its socket's address. */
async function handle(request: Request): Promise<Response> {
  // A console on a remote gateway serves no API of its own: a gateway started here would open the database the
  // console may share with the real one, under a master key of its own, and answer every signed call wrongly.
  if (env().CLOUD_API_URL) return failure(request, 404, "not_found", "this console does not serve the API: call the gateway");
  let gateway: Awaited<ReturnType<typeof embeddedGateway>>;
  try {
    gateway = await embeddedGateway();
  } catch (error) {
    // The gateway could not start (its database unreachable, as in a failover; a migration that failed): the next
    // request tries again. A 503 with Retry-After, which the upstream's clients retry on, while the store is away.
    if (isStoreUnavailable(error)) {
      process.stderr.write(`${JSON.stringify({ level: "warn", msg: "the embedded gateway could not start: its store is unavailable", component: "gateway", error: errorTrace(error) })}\n`);
      return failure(request, 503, "unavailable", "the gateway's store is unavailable for a moment; try again shortly", "", { "retry-after": String(RETRY_AFTER_SECONDS) });
    }
    const errorId = randomUUID();
    process.stderr.write(`${JSON.stringify({ level: "error", msg: "the embedded gateway could not start", component: "gateway", error_id: errorId, error: errorTrace(error) })}\n`);
    return failure(request, 500, "internal", "the gateway could not start; try again later", errorId);
  }
  const bindings: GatewayBindings = { peerAddress: trustedPeerAddress((name) => request.headers.get(name)) ?? undefined };
  return gateway.app.fetch(request, bindings);
}

export const gatewayRouteHandlers = {
  GET: handle,
  POST: handle,
  PUT: handle,
  PATCH: handle,
  DELETE: handle,
  HEAD: handle,
  OPTIONS: handle,
};
