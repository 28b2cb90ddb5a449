import "server-only";
import { headers } from "next/headers";
import { env } from "@/lib/env";

/**
 * Where people reach this console: NEXTAUTH_URL's origin when set (what next-auth builds its
 * callback URLs from), else the request's host as the browser sent it.
 */
export async function consoleOrigin(): Promise<string> {
  const configured = env().NEXTAUTH_URL;
  if (configured) return new URL(configured).origin;
  const h = await headers();
  // Proxies that append to the header send a list: the first is the browser's. A value that makes no origin
  // (a path, spaces) is passed over rather than thrown at every caller building a URL on it.
  const first = (name: string) => h.get(name)?.split(",")[0]?.trim() || undefined;
  const proto = first("x-forwarded-proto") === "https" ? "https" : "http";
  for (const host of [first("x-forwarded-host"), first("host")]) {
    // As an origin is written: the host in lower case (and punycode), no default port.
    if (host && /^[^\s/?#@\\]+$/.test(host) && URL.canParse(`${proto}://${host}`)) return new URL(`${proto}://${host}`).origin;
  }
  return `${proto}://localhost`;
}
