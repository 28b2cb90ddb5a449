import NextAuth, { type NextAuthOptions } from "next-auth";
import type { NextRequest } from "next/server";
import { getAuthOptions, headersOf, logAuth } from "@/lib/console/auth-options";
import { authCookies } from "@/lib/console/cookies";
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
  const refused = refusedInput(request, action, providerId);
  if (refused) return refused;
  const headers = headersOf({ headers: Object.fromEntries(request.headers) });
  if (action === "signin" && providerId === SSO_START && request.method === "POST") return startSsoSignIn(request, headers, run);
  if (action === "signin" && providerId && PROVIDER_ID.test(providerId)) return toSignIn();
  if (action === "callback" && providerId && PROVIDER_ID.test(providerId)) {
    try {
      const test = await handleSsoTestCallback(request, providerId);
      if (test) return test;
      // The provider's own refusal (OpenID Connect Core §3.1.2.6: access_denied for a person not assigned to the
      // application, or who cancelled): nothing to verify, and "try again" would not help.
      const refusal = request.nextUrl.searchParams.get("error");
      if (refusal !== null) {
        logAuth("warn", "the SSO provider refused the sign-in", new Error(refusal.slice(0, 100)));
        return signInErrorAnswer(SIGN_IN_ERROR.ssoRefusedByProvider);
      }
      // No sign-in of this browser's to finish (its state cookie, set by /signin/sso, is gone or was never set):
      // refused as next-auth would refuse it, but before the provider is loaded, its secret unsealed and its
      // discovery document fetched, which anyone could otherwise have the console do for any provider id.
      if (!request.cookies.get(authCookies().state.name)) return signInErrorAnswer(SIGN_IN_ERROR.ssoCallbackFailed);
      const options = await ssoAuthOptions(providerId, headers);
      return options ? await run(request, nextauth, options) : signInErrorAnswer(SIGN_IN_ERROR.ssoProviderGone);
    } catch (error) {
      if (error instanceof SignInError) return signInErrorAnswer(error.code);
      // The store away, or the provider's secret unreadable (sealed under another master key): as the sign-in's
      // start answers them (startSsoSignIn), the sign-in page says so, and the log says why.
      logAuth("error", "the SSO callback could not be handled", error);
      return signInErrorAnswer(SIGN_IN_ERROR.gatewayUnavailable);
    }
  }
  return run(request, nextauth, getAuthOptions());
}

function toSignIn(): Response {
  return new Response(null, { status: 302, headers: { Location: "/sign-in" } });
}

/**
 * What next-auth itself would answer with a 500, answered here:
 * - a POST that is no form (next-auth's browser client, and the sign-in page's SSO start, send forms): next-auth parses a
 *   JSON body unguarded, and hands its fields to the callbacks unchecked;
 * - its error page, which puts the code into a Location header unencoded (a character past Latin-1, or a line break);
 * - a GET of a callback that takes POST only (the key and demo sign-ins' credentials).
 * And its client logger's endpoint (`_log`), which writes what anyone posts there as the console's own error lines
 * (no session, no CSRF token asked). next-auth's browser client posts its own errors there too, and ignores the 404:
 * those no longer reach the server's log (the browser's console shows them).
 */
function refusedInput(request: NextRequest, action: string | undefined, providerId: string | undefined): Response | null {
  if (request.method === "POST" && mediaType(request.headers.get("content-type")) !== "application/x-www-form-urlencoded") {
    return Response.json({ message: "send a form: Content-Type application/x-www-form-urlencoded" }, { status: 415 });
  }
  if (action === "_log") return new Response(null, { status: 404 });
  if (action === "error") return signInErrorAnswer(request.nextUrl.searchParams.get("error") ?? "");
  if (action === "callback" && request.method !== "POST" && !(providerId && PROVIDER_ID.test(providerId))) return toSignIn();
  return null;
}

function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

export { handler as GET, handler as POST };
