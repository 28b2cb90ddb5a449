import "server-only";
import { decode } from "next-auth/jwt";

/**
 * The vault session id inside the session cookie (an encrypted next-auth JWT).
 *
 * next-auth's decode derives the decryption key (HKDF) and decrypts on every call;
 * a browser sends the same cookie with every request, so what a cookie decoded to is
 * kept for that exact cookie value (and secret), only until the token's `exp`, and
 * at most TOKEN_CACHE_MAX_ENTRIES of them. Only the opaque session id is kept: whether
 * that session is still good is the vault's question, asked on every request.
 */

const TOKEN_CACHE_MAX_ENTRIES = 1_000;

interface Decoded {
  sid: string;
  /** The token's exp, in ms. */
  expiresAt: number;
}

let decoded: { secret: string; entries: Map<string, Decoded> } | undefined;

function entriesFor(secret: string): Map<string, Decoded> {
  if (decoded?.secret !== secret) decoded = { secret, entries: new Map() };
  return decoded.entries;
}

/** The session id the token carries, or null when it is missing, unreadable, expired or carries none. */
export async function sessionIdFromToken(token: string | undefined, secret: string, now = Date.now()): Promise<string | null> {
  if (!token) return null;
  const entries = entriesFor(secret);
  const hit = entries.get(token);
  if (hit) {
    if (hit.expiresAt > now) return hit.sid;
    entries.delete(token);
  }
  let payload: Awaited<ReturnType<typeof decode>>;
  try {
    payload = await decode({ token, secret });
  } catch {
    return null;
  }
  const sid = typeof payload?.sid === "string" && payload.sid ? payload.sid : null;
  const exp = payload?.exp;
  if (sid && typeof exp === "number" && exp * 1000 > now) {
    if (entries.size >= TOKEN_CACHE_MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    entries.set(token, { sid, expiresAt: exp * 1000 });
  }
  return sid;
}

/** Tokens remembered now (for tests). */
export function decodedTokenCount(): number {
  return decoded?.entries.size ?? 0;
}
