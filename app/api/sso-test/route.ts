import type { NextRequest } from "next/server";
import { handleSsoTestStart } from "@/lib/console/sso-test";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST: starts an SSO provider's test sign-in (lib/console/sso-test.ts). */
export function POST(request: NextRequest): Promise<Response> {
  return handleSsoTestStart(request);
}
