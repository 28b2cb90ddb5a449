import type { Context } from "hono";
import { addressFrom } from "@/lib/client-address";
import type { AppEnv } from "./context";

/**
 * What only the process serving a request can hand the gateway (Hono's `env`, the
 * second argument of `app.fetch`), never a header a caller could set.
 */
export interface GatewayBindings {
  /** @hono/node-server's request, when the gateway serves HTTP itself. */
  incoming?: { socket?: { remoteAddress?: string } };
  /** The socket address of a request the console's HTTP server received for the embedded gateway's mount. */
  peerAddress?: string;
  /** Set only by the console's own in-process client: the call is the console's, on behalf of this browser address. */
  console?: { clientIp: string };
}

export interface CallOrigin {
  clientIp: string;
  surface: "console" | "api";
}

/** Where a call came from, decided by the server: the console marks its own calls in process; everything else is the API. */
export function callOrigin(c: Context<AppEnv>): CallOrigin {
  const bindings = c.env as GatewayBindings | undefined;
  if (bindings?.console) return { clientIp: bindings.console.clientIp.slice(0, 64), surface: "console" };
  const peer = bindings?.incoming?.socket?.remoteAddress ?? bindings?.peerAddress;
  if (!peer) return { clientIp: "", surface: "api" };
  return { clientIp: addressFrom(c.req.header("x-forwarded-for"), peer, c.get("deps").trustedProxyHops), surface: "api" };
}
