import "server-only";
import { env } from "@/lib/env";

/** Secure cookies when the console is served over https. */
export function sessionCookieSecure(): boolean {
  return env().NEXTAUTH_URL?.startsWith("https://") ?? false;
}

/**
 * The cookie the session token lives in. Over https it is a `__Host-` cookie: the browser takes it only
 * from this host, over https, for the whole site and no other domain, so a sibling subdomain cannot
 * plant a session of its own in the console's browser (next-auth's default `__Secure-` prefix lets it).
 */
export function sessionCookieName(): string {
  return `${sessionCookieSecure() ? "__Host-" : ""}next-auth.session-token`;
}

/** The session cookie's attributes: as next-auth sets it, and as the console renews it (lib/console/mfa-actions.ts). */
export function sessionCookieOptions(): { httpOnly: true; sameSite: "lax"; path: "/"; secure: boolean } {
  return { httpOnly: true, sameSite: "lax", path: "/", secure: sessionCookieSecure() };
}
