import NextAuth, { type NextAuthOptions } from "next-auth";
import type { NextRequest } from "next/server";
import { getAuthOptions, headersOf } from "@/lib/console/auth-options";
import { SignInError } from "@/lib/console/sign-in";
import { signInErrorAnswer, ssoAuthOptions, SSO_START, startSsoSignIn } from "@/lib/console/sso-auth";
import { handleSsoTestCallback } from "@/lib/console/sso-test";
import { SIGN_IN_ERROR } from "@/lib/contract/sign-in-messages";
import { PROVIDER_ID } from "@/lib/gateway/store/queries/sso";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Context = { params: Promise<{ nextauth: string[] }> };

async function run(request: NextRequest, nextauth: string[], options: NextAuthOptions): Promise<Response> {
  return (await NextAuth(request, { params: Promise.resolve({ nextauth }) }, options)) as Response;
}

/**
 * next-auth, with the options of the request: the API-key and demo sign-ins always; an SSO
 * provider's (built for it alone) on /callback/<provider id>, and on /signin/sso, where the
 * sign-in page's e-mail picks the provider. /signin/<provider id> is not served as such: what it
 * would add to the provider's authorization request comes from /signin/sso alone.
 *
 * An admin's "Test sign-in" comes back through the same registered callback URL (admins register
 * one redirect URI only): when this browser holds a test cookie whose state is the callback's, the
 * test takes the callback and signs nobody in; otherwise next-auth handles it (lib/console/sso-test.ts).
 */
async function handler(request: NextRequest, context: Context): Promise<Response> {
  const { nextauth = [] } = await context.params;
  const [action, providerId] = nextauth;
  const headers = headersOf({ headers: Object.fromEntries(request.headers) });
  if (action === "signin" && providerId === SSO_START && request.method === "POST") return startSsoSignIn(request, headers, run);
  if (action === "signin" && providerId && PROVIDER_ID.test(providerId)) return new Response(null, { status: 302, headers: { Location: "/sign-in" } });
  if (action === "callback" && providerId && PROVIDER_ID.test(providerId)) {
    const test = await handleSsoTestCallback(request, providerId);
    if (test) return test;
    try {
      const options = await ssoAuthOptions(providerId, headers);
      return options ? run(request, nextauth, options) : signInErrorAnswer(SIGN_IN_ERROR.ssoProviderGone);
    } catch (error) {
      if (error instanceof SignInError) return signInErrorAnswer(error.code);
      throw error;
    }
  }
  return run(request, nextauth, getAuthOptions());
}

export { handler as GET, handler as POST };
