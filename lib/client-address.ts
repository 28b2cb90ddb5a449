import http from "node:http";
import https from "node:https";
import { countRequest } from "./server-load";

/**
 * Who is on the other end of a request, decided by the server, never by the client:
 * the socket's address, or, behind `hops` trusted proxies (STRATUS_TRUSTED_PROXY_HOPS),
 * the X-Forwarded-For entry the farthest trusted proxy wrote. Entries further left were
 * written by the client itself and are never used.
 */

/** Set on every request this process's HTTP servers receive, from the socket; any incoming value is overwritten. */
export const PEER_ADDRESS_HEADER = "x-stratus-peer-address";

/** Methods the console and the gateway answer; anything else is 405 before it reaches them. */
export const SUPPORTED_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export const UNKNOWN_ADDRESS = "unknown";

/** The client: `peer` when no proxy is trusted, else the entry `hops` places back in [...X-Forwarded-For, peer]. */
export function addressFrom(forwardedFor: string | null | undefined, peer: string | null | undefined, hops: number): string {
  const socket = peer?.trim() || UNKNOWN_ADDRESS;
  if (hops <= 0) return socket.slice(0, 64);
  const chain = [
    ...(forwardedFor ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    socket,
  ];
  return (chain[Math.max(0, chain.length - 1 - hops)] || UNKNOWN_ADDRESS).slice(0, 64);
}

const GUARD_KEY = Symbol.for("stratus.requestGuard");
type GlobalWithGuard = typeof globalThis & { [GUARD_KEY]?: boolean };

/** Whether this process's HTTP servers set PEER_ADDRESS_HEADER themselves (else the header is the client's). */
export function requestGuardInstalled(): boolean {
  return (globalThis as GlobalWithGuard)[GUARD_KEY] === true;
}

/** The socket address the request guard wrote, or null when no guard runs here (the header would be the client's). */
export function trustedPeerAddress(get: (name: string) => string | null | undefined): string | null {
  return requestGuardInstalled() ? (get(PEER_ADDRESS_HEADER) ?? null) : null;
}

/**
 * Node keeps the first of repeated Authorization headers (what Next.js reads), where the standalone gateway's
 * adapter joins them: one request would be authenticated by one server and refused as malformed by the other.
 * Joined here, as RFC 9110 §5.3 combines repeated fields, so both refuse a request that names two credentials.
 */
function joinRepeatedAuthorization(req: http.IncomingMessage): void {
  const raw = req.rawHeaders;
  let values: string[] | null = null;
  let first: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length !== 13 || name.toLowerCase() !== "authorization") continue;
    if (first === undefined) first = raw[i + 1]!;
    else (values ??= [first]).push(raw[i + 1]!);
  }
  if (values) req.headers.authorization = values.join(", ");
}

function refuseMethod(res: http.ServerResponse): void {
  const body = JSON.stringify({ code: "405", message: "method not allowed", error_id: "", reason: "method_not_allowed" });
  res.writeHead(405, {
    allow: [...SUPPORTED_METHODS].join(", "),
    "content-type": "application/json",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * Runs before Next.js (or the standalone gateway's adapter) sees a request, on every
 * HTTP server of this process. Neither offers a hook there: they build a fetch Request
 * at once, which refuses TRACE, CONNECT and TRACK by throwing (a 500), and neither tells
 * a route handler the socket's address. So: an unsupported method is answered 405 here,
 * and the socket's address is written into PEER_ADDRESS_HEADER, replacing whatever the
 * client sent under that name. It also counts the requests being answered (server-load.ts).
 */
export function installRequestGuard(): void {
  const g = globalThis as GlobalWithGuard;
  if (g[GUARD_KEY]) return;
  g[GUARD_KEY] = true;
  // An HTTPS server's emit is not http.Server's (https.Server extends tls.Server): each is guarded.
  guard(http.Server.prototype);
  guard(https.Server.prototype as unknown as http.Server);
}

function guard(proto: http.Server): void {
  const emit = proto.emit as (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;
  proto.emit = function guardedEmit(this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request") {
      const [req, res] = args as [http.IncomingMessage, http.ServerResponse];
      if (!SUPPORTED_METHODS.has(req.method ?? "")) {
        refuseMethod(res);
        return true;
      }
      req.headers[PEER_ADDRESS_HEADER] = req.socket.remoteAddress ?? UNKNOWN_ADDRESS;
      joinRepeatedAuthorization(req);
      countRequest(res);
    }
    return emit.call(this, event, ...args);
  } as typeof proto.emit;
}
