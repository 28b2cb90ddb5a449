/**
 * The browser's client of the console's backend: same-origin calls to
 * /api/cloud/<gateway path> with the session cookie. Browser-safe: no server imports.
 */

import { errorReason, readResponseBody } from "@/lib/contract/response-body";
import { MFA_REQUIRED, mfaStepPath } from "@/lib/contract/mfa-step";

export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    const message =
      typeof body === "object" && body !== null && typeof (body as { message?: unknown }).message === "string"
        ? (body as { message: string }).message
        : `request failed (${status})`;
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
  }
}

/** The message of a failed call as the gateway wrote it (it names the field for a 400). */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return error instanceof Error ? error.message : "The request failed.";
}

export type QueryParams = Record<string, string | string[] | undefined>;

export interface ApiFetchInit {
  method?: string;
  query?: QueryParams;
  body?: unknown;
  /** Ends the call when aborted (an export cancelled): the fetch rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** "?a=1&b=x&b=y": repeated names for arrays, undefined left out, order kept. */
export function toQueryString(query: QueryParams | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, v);
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** The URL the browser calls for a gateway path such as "/v1/organizations/projects". */
export function apiUrl(path: string, query?: QueryParams): string {
  if (!/^\/v1(alpha5)?\//.test(path)) throw new Error(`not a gateway path: ${path}`);
  return `/api/cloud${path}${toQueryString(query)}`;
}

function signInReason(body: unknown): string {
  const reason = errorReason(body);
  return reason === "session_revoked" ? "revoked" : reason === "unauthenticated" ? "required" : "expired";
}

function sendToSignIn(body: unknown): void {
  if (typeof window === "undefined") return;
  const here = `${window.location.pathname}${window.location.search}`;
  if (errorReason(body) === MFA_REQUIRED) {
    window.location.assign(new URL(mfaStepPath(here), window.location.origin));
    return;
  }
  // A full load: the sign-in page is rendered on the server, with the reason.
  const target = new URL("/sign-in", window.location.origin);
  target.searchParams.set("reason", signInReason(body));
  target.searchParams.set("callbackUrl", here);
  window.location.assign(target);
}

/** Calls the gateway through the console's backend; throws ApiError on non-2xx; a 401 goes to sign-in. */
export async function apiFetch<T>(path: string, init: ApiFetchInit = {}): Promise<T> {
  const method = (init.method ?? "GET").toUpperCase();
  const headers: Record<string, string> = { accept: "application/json" };
  let body: string | undefined;
  if (init.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(init.body);
  }
  const response = await fetch(apiUrl(path, init.query), { method, headers, body, credentials: "same-origin", cache: "no-store", signal: init.signal });
  const parsed = await readResponseBody(response);
  if (response.status === 401) sendToSignIn(parsed);
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed as T;
}
