import { trustedPeerAddress } from "@/lib/client-address";
import { env } from "@/lib/env";
import type { GatewayBindings } from "./origin";
import { embeddedGateway } from "./runtime";

/** Route handlers that serve the embedded gateway from the Next.js server: a caller from outside is the API's, at its socket's address. */
async function handle(request: Request): Promise<Response> {
  // A console on a remote gateway serves no API of its own: a gateway started here would open the database the
  // console may share with the real one, under a master key of its own, and answer every signed call wrongly.
  if (env().CLOUD_API_URL) {
    return Response.json({ code: "404", message: "this console does not serve the API: call the gateway", error_id: "", reason: "not_found" }, { status: 404 });
  }
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
