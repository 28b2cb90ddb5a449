import { trustedPeerAddress } from "@/lib/client-address";
import type { GatewayBindings } from "./origin";
import { embeddedGateway } from "./runtime";

/** Route handlers that serve the embedded gateway from the Next.js server: a caller from outside is the API's, at its socket's address. */
async function handle(request: Request): Promise<Response> {
  const gateway = await embeddedGateway();
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
