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
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? "localhost";
  const proto = h.get("x-forwarded-proto") === "https" ? "https" : "http";
  return `${proto}://${host}`;
}
