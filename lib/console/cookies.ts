import "server-only";
import { encode } from "next-auth/jwt";
import { env } from "@/lib/env";
import { vaultLimits } from "./config";
import { authSecret } from "./secret";

/** Secure cookies when the console is served over https. */
export function sessionCookieSecure(): boolean {
  const url = env().NEXTAUTH_URL;
  // The scheme as a URL reads it (HTTPS:// is https too).
  return url !== undefined && URL.canParse(url) && new URL(url).protocol === "https:";
}

/**
 * The cookie the session token lives in. Over https it is a `__Host-` cookie: the browser takes it only
 * from this host, over https, for the whole site and no other domain, so a sibling subdomain cannot
 * plant a session of its own in the console's browser (next-auth's default `__Secure-` prefix lets it).
 */
export function sessionCookieName(): string {
  return `${sessionCookieSecure() ? "__Host-" : ""}next-auth.session-token`;
}

/** The session cookie's attributes: as next-auth sets it, and as the console moves it (movedSessionCookie). */
export function sessionCookieOptions(): { httpOnly: true; sameSite: "lax"; path: "/"; secure: boolean } {
  return { httpOnly: true, sameSite: "lax", path: "/", secure: sessionCookieSecure() };
}

/**
 * next-auth's cookies, all `__Host-` over https. Besides the session's, the SSO sign-in's own (its state, PKCE
 * verifier and nonce, and where it goes after): with next-auth's `__Secure-` names a sibling subdomain could
 * plant the ones of a sign-in it started in the person's browser, then send the browser to that sign-in's
 * callback, which would sign the person in as the sibling's account.
 */
export function authCookies() {
  const secure = sessionCookieSecure();
  const name = (cookie: string) => `${secure ? "__Host-" : ""}next-auth.${cookie}`;
  const flow = { ...sessionCookieOptions(), maxAge: 15 * 60 };
  return {
    sessionToken: { name: sessionCookieName(), options: sessionCookieOptions() },
    callbackUrl: { name: name("callback-url"), options: sessionCookieOptions() },
    state: { name: name("state"), options: flow },
    pkceCodeVerifier: { name: name("pkce.code_verifier"), options: flow },
    nonce: { name: name("nonce"), options: flow },
  };
}

/**
 * The session cookie naming a session that moved to a new id (a factor given, the MFA step finished),
 * as next-auth would have written it: for the response to the request that moved it, and no other.
 */
export async function movedSessionCookie(sessionId: string, person: { userId: string; email: string }): Promise<{ name: string; value: string; options: ReturnType<typeof sessionCookieOptions> & { maxAge: number } }> {
  const maxAge = vaultLimits().maxHours * 3600;
  const value = await encode({ token: { sid: sessionId, uid: person.userId, email: person.email }, secret: authSecret(), maxAge });
  return { name: sessionCookieName(), value, options: { ...sessionCookieOptions(), maxAge } };
}
