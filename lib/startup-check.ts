import "server-only";
import { env } from "@/lib/env";
import { sessionCookieSecure } from "@/lib/console/cookies";
import { authSecret } from "@/lib/console/secret";

/**
 * The console's configuration, checked as its server starts (instrumentation.ts), not at its first request: a bad value
 * (or no AUTH_SECRET in production) stops the server with the variable named, instead of a server that answers every
 * page with a 500. The message only: the values are not repeated.
 */
export function checkConsoleConfiguration(): void {
  try {
    env();
    authSecret();
  } catch (error) {
    console.error(`the console cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
    return;
  }
  const warning = cookieWarning();
  if (warning) console.warn(`the console's session cookies: ${warning}`);
}

/**
 * The session cookie is Secure (and `__Host-`) only when NEXTAUTH_URL says https (lib/console/cookies.ts): in
 * production, a console reached over https without it, or one on another host over plain http, sends the session
 * without that protection. Said as the server starts; not refused, since a console on a private network may do so
 * knowingly.
 */
function cookieWarning(): string | null {
  const config = env();
  if (config.NODE_ENV !== "production" || sessionCookieSecure()) return null;
  const url = config.NEXTAUTH_URL;
  if (!url) return "NEXTAUTH_URL is not set, so they are not marked Secure: set it to the console's public https:// address";
  const { protocol, hostname } = new URL(url);
  if (LOOPBACK.test(hostname)) return null;
  return `NEXTAUTH_URL is ${protocol}// on ${hostname}, so they travel unencrypted and are not marked Secure: serve the console over https and say so in NEXTAUTH_URL`;
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;
