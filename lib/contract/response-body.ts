/**
 * Reading the gateway's answers, for the console's server and the browser alike (free of zod
 * and of server-only modules).
 */

/** An answer's body: its JSON, its text when it is not JSON, undefined when empty. */
export async function readResponseBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The `reason` of an error body ("session_revoked", "unauthenticated"…), if it names one. */
export function errorReason(body: unknown): unknown {
  return typeof body === "object" && body !== null ? (body as { reason?: unknown }).reason : undefined;
}
