import { createHmac, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { addressFrom } from "@/lib/client-address";
import { parseAuthorization } from "@/lib/signing";
import type { AppEnv } from "./context";

/** The header a console calling a remote gateway marks its calls with: `<browser address>;<mac>`. */
export const CONSOLE_CHANNEL_HEADER = "x-stratus-console";

/**
 * The mark of one call: an HMAC under the key console and gateway share, over the call's own
 * signature (so it is good for that call only, and a mutation's signature is accepted once)
 * and the browser's address it vouches for.
 */
export function consoleChannelMark(key: string, authorization: string, clientIp: string): string | null {
  const signature = parseAuthorization(authorization)?.signature;
  if (!signature || clientIp.includes(";")) return null;
  const mac = createHmac("sha256", key).update(`stratus-console\n${signature}\n${clientIp}`).digest("base64url");
  return `${clientIp};${mac}`;
}

function markedByConsole(c: Context<AppEnv>, key: string | undefined): string | null {
  const mark = c.req.header(CONSOLE_CHANNEL_HEADER);
  if (!key || !mark) return null;
  const at = mark.lastIndexOf(";");
  const clientIp = mark.slice(0, at);
  const expected = consoleChannelMark(key, c.req.header("authorization") ?? "", clientIp);
  if (at < 0 || !expected) return null;
  const [a, b] = [Buffer.from(mark), Buffer.from(expected)];
  return a.length === b.length && timingSafeEqual(a, b) ? clientIp : null;
}

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

/**
 * Where a call came from, decided by the server: the console marks its own calls in process, or,
 * calling a remote gateway, with an HMAC under the key they share; everything else is the API.
 */
export function callOrigin(c: Context<AppEnv>): CallOrigin {
  const bindings = c.env as GatewayBindings | undefined;
  if (bindings?.console) return { clientIp: bindings.console.clientIp.slice(0, 64), surface: "console" };
  const vouched = markedByConsole(c, c.get("deps").consoleChannelKey);
  if (vouched !== null) return { clientIp: vouched.slice(0, 64), surface: "console" };
  const peer = bindings?.incoming?.socket?.remoteAddress ?? bindings?.peerAddress;
  if (!peer) return { clientIp: "", surface: "api" };
  return { clientIp: addressFrom(c.req.header("x-forwarded-for"), peer, c.get("deps").trustedProxyHops), surface: "api" };
}
