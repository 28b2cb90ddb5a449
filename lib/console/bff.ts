import "server-only";
import { isUtf8 } from "node:buffer";
import { resolveConsoleSession, type ConsoleSession, type SessionState } from "@/lib/console/session";
import { env } from "@/lib/env";
import { idSchema } from "@/lib/contract/common";
import { MFA_REQUIRED } from "@/lib/contract/sign-in-messages";
import { cloudFetch, SESSION_EXPIRED, SESSION_REVOKED, type CloudFetchInit } from "./gateway-client";
import { allowedOperation } from "./allow-list";
import { gatewayIsEmbedded } from "./config";
import { CONFIRM_ITS_YOU, mustConfirmItsYou } from "./mfa";
import { consoleDb } from "./store/client";
import { endOtherSessionsOf } from "./vault";
import { consoleFailureMessage, logConsoleFailure } from "./failure";
import { clientAddress } from "./rate-limit";
import { errorDetail } from "@/lib/error-detail";
import { RETRY_AFTER_SECONDS } from "@/lib/gateway/errors";

/**
 * The backend-for-frontend behind /api/cloud/<gateway path>: the browser calls it
 * with its session cookie, it signs with the session's key and forwards — only
 * operations the gateway declares, only same-site mutations, only JSON bodies.
 */

export const BFF_PREFIX = "/api/cloud";

export interface BffDeps {
  session(): Promise<SessionState>;
  fetch(session: ConsoleSession, method: string, pathAndQuery: string, init: CloudFetchInit): Promise<Response>;
  maxBodyBytes: number;
  trustedProxyHops: number;
  publicUrl?: string;
}

function defaultDeps(): BffDeps {
  const config = env();
  return {
    session: resolveConsoleSession,
    fetch: cloudFetch,
    maxBodyBytes: config.STRATUS_BFF_MAX_BODY_BYTES,
    trustedProxyHops: config.STRATUS_TRUSTED_PROXY_HOPS,
    publicUrl: config.NEXTAUTH_URL,
  };
}

function problem(status: number, reason: string, message: string, errorId = ""): Response {
  return Response.json({ code: String(status), message, error_id: errorId, reason }, { status, headers: { "cache-control": "no-store" } });
}

/**
 * The answer to a failure of the console's own store (a session's lookup, ending sessions): while the store is away
 * a 503 with Retry-After, as the gateway answers; anything else a 500 with the id its log line carries.
 */
export function consoleStoreFailure(error: unknown, step: string, component: string): Response {
  const logged = logConsoleFailure(error, step, component);
  if (logged.unavailable) {
    const answer = problem(503, "unavailable", consoleFailureMessage(logged));
    answer.headers.set("retry-after", String(RETRY_AFTER_SECONDS));
    return answer;
  }
  return problem(500, "internal", "The console could not complete the request; try again later", logged.errorId);
}

/** Why a call without an active session is refused; "mfa_required": signed in, but a second factor is still owed. */
const ENDED_REASONS = { none: "unauthenticated", expired: SESSION_EXPIRED, revoked: SESSION_REVOKED, mfa: MFA_REQUIRED } as const;

const SAFE_METHODS = new Set(["GET", "HEAD"]);

function firstHost(value: string | null): string | null {
  return value?.split(",")[0]?.trim().toLowerCase() || null;
}

/**
 * A mutation from another site: Sec-Fetch-Site says so, or the Origin is not this
 * host. Requests without either (non-browser clients) still need the session cookie.
 */
export function isCrossSiteMutation(request: Request, publicUrl?: string): boolean {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return false;
  const site = request.headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return true;
  const origin = request.headers.get("origin");
  if (origin === null) return false;
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return true; // "null" and other opaque origins
  }
  const self = new URL(request.url);
  const pub = publicUrl ? new URL(publicUrl) : undefined;
  // An origin is its scheme too (RFC 6454): a page of this host over plain HTTP, where the console is served
  // over HTTPS, is another origin (one a network attacker can write).
  const scheme = pub?.protocol ?? `${firstHost(request.headers.get("x-forwarded-proto")) ?? self.protocol.slice(0, -1)}:`;
  if (from.protocol === "http:" && scheme === "https:") return true;
  const ours = [firstHost(request.headers.get("x-forwarded-host")), firstHost(request.headers.get("host")), self.host.toLowerCase()];
  if (pub) ours.push(pub.host.toLowerCase());
  return !ours.includes(from.host.toLowerCase());
}

type BodyRead = { ok: true; body: string | undefined } | { ok: false; response: Response };

/** Methods whose requests the console always sends with a JSON body. */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

const unsupportedType = () => problem(415, "bad_request", "body: Content-Type must be application/json");

/**
 * The request's body, when it is JSON. A POST, PUT or PATCH must say it is JSON even with no body: a form
 * another site submits (a "simple" request, sent without asking first) cannot, so none reaches the
 * gateway, whatever its Origin check sees (a browser that sends neither Origin nor Sec-Fetch-Site).
 */
async function readJsonBody(request: Request, method: string, maxBytes: number): Promise<BodyRead> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) return { ok: false, response: problem(413, "payload_too_large", `body: larger than ${maxBytes} bytes`) };
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (BODY_METHODS.has(method) && type !== "application/json") return { ok: false, response: unsupportedType() };
  if (!request.body) return { ok: true, body: undefined };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return { ok: false, response: problem(413, "payload_too_large", `body: larger than ${maxBytes} bytes`) };
    }
    chunks.push(value);
  }
  if (size === 0) return { ok: true, body: undefined };
  if (type !== "application/json") return { ok: false, response: unsupportedType() };
  const bytes = Buffer.concat(chunks);
  // Decoded as it is, a byte that is not UTF-8 would be forwarded as U+FFFD: data other than sent. The gateway's own answer.
  if (!isUtf8(bytes)) return { ok: false, response: problem(400, "bad_request", "body: is not valid UTF-8") };
  return { ok: true, body: bytes.toString("utf8") };
}

const PASSED_HEADERS = ["content-type", "content-disposition", "x-request-id", "retry-after"];

function isJson(contentType: string | null): boolean {
  return !!contentType && /^application\/([a-z0-9.+-]*\+)?json\b/i.test(contentType);
}

/** "…/billing/export-productline" → "export-productline-2026-05-01.csv" */
export function downloadName(versionedPath: string, contentType: string | null, today = new Date()): string {
  const segment = versionedPath.split("/").filter(Boolean).pop() ?? "download";
  const base = segment.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 64) || "download";
  const ext = contentType?.toLowerCase().startsWith("text/csv") ? "csv" : contentType?.toLowerCase().startsWith("text/plain") ? "txt" : "bin";
  return `${base}-${today.toISOString().slice(0, 10)}.${ext}`;
}

/**
 * A reset of the session's own second factors, by a session that must first confirm it is the person (they have
 * factors, and it gave none: mustConfirmItsYou). The account page asks that before any change of them; through here,
 * whoever held the first factor alone (an SSO password; a key, which signs every request anyway, is another matter)
 * could clear them, then enrol their own once an organization asks for one.
 */
async function resetsOwnFactorsUnconfirmed(versionedPath: string, session: ConsoleSession): Promise<boolean> {
  return gatewayIsEmbedded() && resetsOwnFactors(versionedPath, session) && (await mustConfirmItsYou(session));
}

/** The person whose second factors a reset (resetOrganizationPersonMfa) is of, or null when the path names none. */
function resetTarget(versionedPath: string): string | null {
  const target = /\/users\/([^/]+)\/mfa\/?$/.exec(versionedPath)?.[1] ?? "";
  let segment: string;
  try {
    segment = decodeURIComponent(target);
  } catch {
    return null;
  }
  // Read as the gateway reads the parameter (idSchema: trimmed), or `<own id>%20` would reach the same account unasked.
  const userId = idSchema.safeParse(segment);
  return userId.success ? userId.data : null;
}

/** Whether a reset of second factors (resetOrganizationPersonMfa) is of the session's own person. */
function resetsOwnFactors(versionedPath: string, session: ConsoleSession): boolean {
  return Boolean(session.userId) && resetTarget(versionedPath) === session.userId;
}

/**
 * A percent-escape of an unreserved character (ALPHA, DIGIT, "-", ".", "_", "~"). The gateway's router decodes
 * them (`…/gpu-tr%61cking` is GPU tracking there, not a reservation of that id), so a path holding one could be
 * checked here as one operation and run there as another. The console never writes one (encodeURIComponent
 * leaves these characters as they are), and decoding them here could make dot segments (`%2%45%2E`) that the
 * fetch to the gateway would then resolve: such a path is refused.
 */
const UNRESERVED_ESCAPE = /%(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|2[DEde]|5[Ff]|7[Ee])/;

export async function handleCloudRequest(request: Request, deps: BffDeps = defaultDeps()): Promise<Response> {
  const method = request.method.toUpperCase();
  const url = new URL(request.url);
  if (!url.pathname.startsWith(`${BFF_PREFIX}/`)) return problem(404, "not_found", "no such operation");
  const versionedPath = url.pathname.slice(BFF_PREFIX.length);
  if (UNRESERVED_ESCAPE.test(versionedPath)) return problem(400, "bad_request", "path: a letter, digit or one of - . _ ~ is percent-encoded; write it as it is");

  if (isCrossSiteMutation(request, deps.publicUrl)) return problem(403, "permission_denied", "cross-site request refused");
  // HEAD is a GET without its body, as the gateway answers it.
  const operation = allowedOperation(method === "HEAD" ? "GET" : method, versionedPath);
  if (!operation) return problem(404, "not_found", `no operation ${method} ${versionedPath}`);

  let state: SessionState;
  try {
    state = await deps.session();
  } catch (error) {
    return consoleStoreFailure(error, "the session's lookup", "bff");
  }
  // The 401 says why, so the browser can tell the user on the sign-in page.
  if (state.status !== "active") {
    return problem(401, ENDED_REASONS[state.status], state.status === "mfa" ? "Give your second factor to continue" : "Sign in to continue");
  }
  const session = state.session;
  let unconfirmed: boolean;
  try {
    unconfirmed = operation === "resetOrganizationPersonMfa" && (await resetsOwnFactorsUnconfirmed(versionedPath, session));
  } catch (error) {
    return consoleStoreFailure(error, "the check of the session's second factors", "bff");
  }
  if (unconfirmed) return problem(403, "permission_denied", CONFIRM_ITS_YOU);

  let body: string | undefined;
  if (!SAFE_METHODS.has(method)) {
    const read = await readJsonBody(request, method, deps.maxBodyBytes);
    if (!read.ok) return read.response;
    body = read.body;
  }

  let upstream: Response;
  try {
    upstream = await deps.fetch(session, method, versionedPath + url.search, {
      body,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      clientIp: clientAddress(request.headers, deps.trustedProxyHops),
      signal: request.signal,
    });
  } catch (error) {
    // The browser went away (the call was ended with it): no one reads this answer, and nothing failed.
    if (request.signal.aborted) return problem(499, "client_closed_request", "The request was abandoned");
    process.stderr.write(`${JSON.stringify({ level: "error", msg: "gateway call failed", component: "bff", method, path: versionedPath, error: errorDetail(error) || "unknown" })}\n`);
    if (error instanceof Error && error.name === "TimeoutError") return problem(504, "timeout", "The platform did not answer in time; try again in a moment");
    return problem(502, "bad_gateway", "The platform could not be reached; try again in a moment");
  }

  // A person's factors were reset, a planted one among them perhaps: as a removal of one does (removeOwnFactor), it
  // ends every session of theirs but the caller's own, one that planted it included. Left open, a session that got
  // in with a stolen factor would enrol its own next, and the person's next sign-in would have to answer it.
  const target = operation === "resetOrganizationPersonMfa" && upstream.ok && gatewayIsEmbedded() ? resetTarget(versionedPath) : null;
  if (target) {
    try {
      await endOtherSessionsOf(await consoleDb(), target, session.sessionId);
    } catch (error) {
      // The factors are gone but the other sessions live on: not a success. The reset may be sent again.
      await upstream.body?.cancel();
      return consoleStoreFailure(error, "ending the person's other sessions", "bff");
    }
  }

  const headers = new Headers({ "cache-control": "no-store", "x-content-type-options": "nosniff" });
  for (const name of PASSED_HEADERS) {
    const value = upstream.headers.get(name);
    if (value) headers.set(name, value);
  }
  const contentType = upstream.headers.get("content-type");
  if (upstream.ok && upstream.body && !isJson(contentType) && !headers.has("content-disposition")) {
    headers.set("content-disposition", `attachment; filename="${downloadName(versionedPath, contentType)}"`);
  }
  // No answer here is a page: should one come as HTML (a proxy's error page in front of a remote gateway), a browser
  // opening it on the console's origin runs nothing of it. (An attachment is never rendered; the policy stays off it.)
  if (!/^\s*attachment\b/i.test(headers.get("content-disposition") ?? "")) headers.set("content-security-policy", "default-src 'none'; sandbox");
  const nullBody = upstream.status === 204 || upstream.status === 304 || method === "HEAD";
  if (nullBody) await upstream.body?.cancel();
  // Streamed as it comes: a CSV export is written in batches and never held whole here.
  return new Response(nullBody ? null : upstream.body, { status: upstream.status, headers });
}
