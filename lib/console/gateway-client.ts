import "server-only";
import { redirect } from "next/navigation";
import { cache } from "react";
import type { ConsoleSession } from "@/lib/console/session";
import { errorReason, readResponseBody } from "@/lib/contract/response-body";
import { env } from "@/lib/env";
import { CONSOLE_CHANNEL_HEADER, consoleChannelMark, type GatewayBindings } from "@/lib/gateway/origin";
import { replayRefusal } from "@/lib/gateway/middleware/replay";
import { embeddedGateway } from "@/lib/gateway/runtime";
import { signedHeaders } from "@/lib/signing";
import { vaultKey } from "./config";
import { consoleDb } from "./store/client";
import { markVaultSessionRevoked, sessionCredentials, type Credentials } from "./vault";

/**
 * The console's server-side client of the gateway. Every call is signed with the
 * session's key from the vault; the key never leaves the server. Embedded, the
 * signed Request goes to the gateway's fetch handler in-process (the same
 * verification, no network hop); remote, to CLOUD_API_URL.
 */

export interface CloudFetchInit {
  body?: string;
  headers?: Record<string, string>;
  /** The browser's address, for the gateway's audit log. */
  clientIp?: string;
  /** Ends a call to a remote gateway that has not answered yet: the browser's request, gone. */
  signal?: AbortSignal;
}

export class CloudError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    const message = typeof body === "object" && body !== null && "message" in body ? String((body as { message: unknown }).message) : `gateway answered ${status}`;
    super(message);
    this.name = "CloudError";
    this.status = status;
    this.body = body;
  }
}

/** Reasons the console gives (in a 401 body) when a session can no longer call the gateway. */
export const SESSION_REVOKED = "session_revoked";
export const SESSION_EXPIRED = "session_expired";

const EMBEDDED_ORIGIN = "http://gateway.embedded";
/**
 * Longest wait for a remote gateway's answer to begin: a second past the gateway's own deadline to its first byte
 * (STRATUS_REQUEST_TIMEOUT_SECONDS, which both share), so that its 504 comes first. The body (a long export) then
 * streams for as long as it takes.
 */
export function remoteFirstByteTimeoutMs(): number {
  return (env().STRATUS_REQUEST_TIMEOUT_SECONDS + 1) * 1000;
}

/**
 * Where a call goes, and the path it is signed over. The signed path is the versioned one (`/v1/…`), as the
 * interface defines it (its `http_path` holds the API's version prefix): a CLOUD_API_URL with a path of its own
 * (`https://edge.example/platform`) reaches a gateway through a proxy that strips that prefix, and the gateway
 * verifies the path it is given.
 */
function gatewayUrls(pathAndQuery: string): { sent: URL; signed: URL } {
  if (!pathAndQuery.startsWith("/") || pathAndQuery.startsWith("//")) throw new Error("gateway path must start with a single /");
  const base = new URL(env().CLOUD_API_URL ?? EMBEDDED_ORIGIN);
  const signed = new URL(pathAndQuery, base.origin);
  const sent = new URL(base.pathname.replace(/\/+$/, "") + signed.pathname + signed.search, base.origin);
  if (signed.origin !== base.origin || sent.origin !== base.origin) throw new Error("gateway path leaves the gateway");
  return { sent, signed };
}

/** A signed call with the given key (sign-in uses it before any session exists). */
export async function gatewayFetch(credentials: Credentials, method: string, pathAndQuery: string, init: CloudFetchInit = {}): Promise<Response> {
  const { sent, signed } = gatewayUrls(pathAndQuery);
  const verb = method.toUpperCase();
  const headers = new Headers(init.headers);
  headers.delete("authorization");
  if (!headers.has("accept")) headers.set("accept", "application/json");
  for (const [name, value] of Object.entries(signedHeaders(credentials, { method: verb, url: signed }))) headers.set(name, value);
  const body = verb === "GET" || verb === "HEAD" ? undefined : init.body;
  const { CLOUD_API_URL: remote, STRATUS_CONSOLE_CHANNEL_KEY: channelKey } = env();
  // Remote, the console's mark is an HMAC over this call's own signature under the key the gateway shares.
  const mark = remote && channelKey ? consoleChannelMark(channelKey, headers.get("authorization") ?? "", init.clientIp ?? "") : null;
  if (mark) headers.set(CONSOLE_CHANNEL_HEADER, mark);
  const request = new Request(sent, { method: verb, headers, body });
  if (!remote) {
    const gateway = await embeddedGateway();
    // In process, the call says it is the console's where no caller can: beside the request, not in it.
    const bindings: GatewayBindings = { console: { clientIp: init.clientIp ?? "" } };
    return gateway.app.fetch(request, bindings);
  }
  return remoteFetch(request, init.signal);
}

/**
 * A call to the remote gateway: aborted when its answer has not begun within remoteFirstByteTimeoutMs() (a
 * TimeoutError), as the gateway's own deadline is to the first byte, or when `signal` (the browser's) ends first.
 * Redirects are not followed: the signature is for this gateway only.
 */
async function remoteFetch(request: Request, signal: AbortSignal | undefined): Promise<Response> {
  const deadline = new AbortController();
  const limitMs = remoteFirstByteTimeoutMs();
  const timer = setTimeout(() => deadline.abort(new DOMException(`the gateway did not begin to answer within ${limitMs / 1000} s`, "TimeoutError")), limitMs);
  try {
    return await fetch(request, { redirect: "manual", cache: "no-store", signal: signal ? AbortSignal.any([deadline.signal, signal]) : deadline.signal });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether the gateway refused the key itself (unknown, revoked, bad signature)
 * rather than the operation: 401, or a 403 whose reason is "unauthenticated"
 * (operations that declare no 401 answer an authentication failure with 403).
 */
export async function isKeyRefused(response: Response): Promise<boolean> {
  if (response.status === 401) return true;
  if (response.status !== 403) return false;
  try {
    const body = (await response.clone().json()) as { reason?: unknown };
    return body.reason === "unauthenticated";
  } catch {
    return false;
  }
}

/** A 401 (or an undeclared one's 403) of the replay guard, which refused the signature, not the key: which refusal. */
async function signatureRefusal(response: Response): Promise<ReturnType<typeof replayRefusal>> {
  if (response.status !== 401 && response.status !== 403) return null;
  try {
    const body = (await response.clone().json()) as { reason?: unknown; message?: unknown };
    return body.reason === "unauthenticated" ? replayRefusal(body.message) : null;
  } catch {
    return null;
  }
}

function sessionEnded(reason: typeof SESSION_REVOKED | typeof SESSION_EXPIRED, requestId: string | null): Response {
  const message = reason === SESSION_REVOKED ? "Your API key was revoked or expired; sign in again" : "Your session has ended; sign in again";
  return Response.json({ code: "401", message, error_id: requestId ?? "", reason }, { status: 401, headers: { "cache-control": "no-store" } });
}

/**
 * A call signed with the session's key. When the gateway refuses the key the
 * session ends (its secret is dropped) and the answer is a 401 whose reason is
 * "session_revoked"; a session without a usable key answers "session_expired".
 */
export async function cloudFetch(session: ConsoleSession, method: string, pathAndQuery: string, init?: CloudFetchInit): Promise<Response> {
  const db = await consoleDb();
  const credentials = await sessionCredentials(db, vaultKey(), session);
  if (!credentials) return sessionEnded(SESSION_EXPIRED, null);
  let response = await gatewayFetch(credentials, method, pathAndQuery, init);
  // The replay guard refused the signature as one used before: another replica of this console signed a call of this
  // session to the same path in the same millisecond alike (a process tells its own calls apart, not another's). The
  // key is not at fault, and the session stays. Sent before with another body, this call was not made: signed anew
  // (another timestamp), it is sent once more. Refused as spent (a call under it was answered, perhaps this very one
  // sent twice by a proxy on the way), it is not: the refusal is the answer.
  let refusal = await signatureRefusal(response);
  if (refusal === "other_body") {
    await response.body?.cancel();
    response = await gatewayFetch(credentials, method, pathAndQuery, init);
    refusal = await signatureRefusal(response);
  }
  if (refusal) return response;
  if (await isKeyRefused(response)) {
    await response.body?.cancel();
    // Every signature is refused while the clocks disagree: the key is not at fault, and the session stays.
    if (clockSkewSeconds(response) !== null) return clockSkewAnswer(response.headers.get("x-request-id"));
    await markVaultSessionRevoked(db, session.sessionId);
    return sessionEnded(SESSION_REVOKED, response.headers.get("x-request-id"));
  }
  return response;
}

/** When the clock difference was last logged: once a minute at most, however many calls it refuses. */
let skewLoggedAt = 0;

/**
 * How many seconds a remote gateway's clock (its answer's Date header) is ahead of the console's (negative: behind),
 * when that is beyond the skew the gateway allows a signature (STRATUS_SIGNATURE_SKEW_SECONDS, which both share): then
 * it refuses every signature, whatever the key, so a refusal says nothing of the key. Otherwise, or embedded, null:
 * a refusal is the key's. Such a difference is logged for the operator, at most once a minute.
 */
export function clockSkewSeconds(response: Response, now: number = Date.now()): number | null {
  const { CLOUD_API_URL: remote, STRATUS_SIGNATURE_SKEW_SECONDS: allowed } = env();
  if (!remote) return null;
  const date = Date.parse(response.headers.get("date") ?? "");
  if (Number.isNaN(date)) return null;
  // A Date has whole seconds, and the answer left the gateway after the signature was made: a second either way.
  const skew = Math.round((date - now) / 1000);
  if (Math.abs(skew) <= allowed + 1) return null;
  if (now - skewLoggedAt >= 60_000) {
    skewLoggedAt = now;
    process.stderr.write(
      `${JSON.stringify({ level: "error", msg: "the gateway refuses signatures: its clock differs from the console's by more than the allowed skew; synchronise both (NTP)", component: "gateway-client", gateway_ahead_seconds: skew, allowed_skew_seconds: allowed })}\n`,
    );
  }
  return skew;
}

function clockSkewAnswer(requestId: string | null): Response {
  const message = "The console's clock and the platform's disagree, so the platform refuses its calls; the operator has been told";
  return Response.json({ code: "502", message, error_id: requestId ?? "", reason: "clock_skew" }, { status: 502, headers: { "cache-control": "no-store" } });
}

/**
 * GET and parse JSON. A non-2xx answer throws CloudError; a session that can no
 * longer call the gateway sends the user to sign-in with the reason (a Next.js
 * redirect, so use it where one may happen: server components, actions, handlers).
 */
export function cloudJson<T>(session: ConsoleSession, pathAndQuery: string): Promise<T> {
  return renderedGet(session, pathAndQuery) as Promise<T>;
}

/**
 * One call per server render for each path: a layout and its page that read the same thing (the
 * organization list: the shell's switcher and the page's own prefetch) share one answer, which
 * neither changes. React's request cache; outside a render (route handlers, actions) every call goes.
 */
const renderedGet = cache((session: ConsoleSession, pathAndQuery: string): Promise<unknown> => getJson(session, pathAndQuery));

async function getJson(session: ConsoleSession, pathAndQuery: string): Promise<unknown> {
  const response = await cloudFetch(session, "GET", pathAndQuery);
  const body = await readResponseBody(response);
  if (response.status === 401) {
    const reason = errorReason(body);
    if (reason === SESSION_REVOKED) redirect("/sign-in?reason=revoked");
    if (reason === SESSION_EXPIRED) redirect("/sign-in?reason=expired");
  }
  if (!response.ok) throw new CloudError(response.status, body);
  return body;
}
