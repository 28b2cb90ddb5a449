import { NextResponse, type NextRequest } from "next/server";
import { contentSecurityPolicy } from "@/lib/security-headers";

/**
 * Per-request CSP nonce for the console's pages (Next.js reads it from the request's
 * policy header for its own scripts), and HSTS when served over HTTPS.
 */
export function proxy(request: NextRequest) {
  const nonce = btoa(crypto.randomUUID());
  const policy = contentSecurityPolicy(nonce, process.env.NODE_ENV === "development");
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("Content-Security-Policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", policy);
  const https = request.nextUrl.protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  if (https) response.headers.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
  return response;
}

export const config = {
  // Every page, prefetches of pages and next-auth's own pages included: only the gateway's API, the JSON
  // backend-for-frontend and static files get the static headers from next.config.ts alone.
  matcher: ["/((?!v1/|v1alpha5/|scim/|api/cloud/|healthz|_next/static|_next/image|favicon.ico).*)"],
};
