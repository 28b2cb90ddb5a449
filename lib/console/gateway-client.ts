import "server-only";
import { redirect } from "next/navigation";
import { cache } from "react";
import type { ConsoleSession } from "@/lib/console/session";
import { errorReason, readResponseBody } from "@/lib/contract/response-body";
import { env } from "@/lib/env";
import { CONSOLE_CHANNEL_HEADER, consoleChannelMark, type GatewayBindings } from "@/lib/gateway/origin";
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
const REMOTE_TIMEOUT_MS = 30_000;

function gatewayUrl(pathAndQuery: string): URL {
  if (!pathAndQuery.startsWith("/") || pathAndQuery.startsWith("//")) throw new Error("gateway path must start with a single /");
  const base = (env().CLOUD_API_URL ?? EMBEDDED_ORIGIN).replace(/\/+$/, "");
  const url = new URL(base + pathAndQuery);
  if (url.origin !== new URL(base).origin) throw new Error("gateway path leaves the gateway");
  return url;
}

/** A signed call with the given key (sign-in uses it before any session exists). */
export async function gatewayFetch(credentials: Credentials, method: string, pathAndQuery: string, init: CloudFetchInit = {}): Promise<Response> {
  const url = gatewayUrl(pathAndQuery);
  const verb = method.toUpperCase();
  const headers = new Headers(init.headers);
  headers.delete("authorization");
  if (!headers.has("accept")) headers.set("accept", "application/json");
  for (const [name, value] of Object.entries(signedHeaders(credentials, { method: verb, url }))) headers.set(name, value);
  const body = verb === "GET" || verb === "HEAD" ? undefined : init.body;
  const { CLOUD_API_URL: remote, STRATUS_CONSOLE_CHANNEL_KEY: channelKey } = env();
  // Remote, the console's mark is an HMAC over this call's own signature under the key the gateway shares.
  const mark = remote && channelKey ? consoleChannelMark(channelKey, headers.get("authorization") ?? "", init.clientIp ?? "") : null;
  if (mark) headers.set(CONSOLE_CHANNEL_HEADER, mark);
  const request = new Request(url, { method: verb, headers, body });
  if (!remote) {
    const gateway = await embeddedGateway();
    // In process, the call says it is the console's where no caller can: beside the request, not in it.
    const bindings: GatewayBindings = { console: { clientIp: init.clientIp ?? "" } };
    return gateway.app.fetch(request, bindings);
  }
  return fetch(request, { redirect: "manual", cache: "no-store", signal: AbortSignal.timeout(REMOTE_TIMEOUT_MS) });
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
  const response = await gatewayFetch(credentials, method, pathAndQuery, init);
  if (await isKeyRefused(response)) {
    await markVaultSessionRevoked(db, session.sessionId);
    await response.body?.cancel();
    return sessionEnded(SESSION_REVOKED, response.headers.get("x-request-id"));
  }
  return response;
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
