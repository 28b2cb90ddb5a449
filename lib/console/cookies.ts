import "server-only";
import { env } from "@/lib/env";

/** Secure cookies (and their __Secure- prefix) when the console is served over https. */
export function sessionCookieSecure(): boolean {
  return env().NEXTAUTH_URL?.startsWith("https://") ?? false;
}

/** The cookie next-auth keeps the session token in, as it names it. */
export function sessionCookieName(): string {
  return `${sessionCookieSecure() ? "__Secure-" : ""}next-auth.session-token`;
}
