import { NextResponse, type NextRequest } from "next/server";
import { movedSessionCookie } from "@/lib/console/cookies";
import { finishSignIn } from "@/lib/console/mfa";
import { sessionStateFromCookies, signInPath } from "@/lib/console/session";
import { logAuth } from "@/lib/console/auth-options";
import { signInErrorPath } from "@/lib/console/sso-auth";
import { mfaStepPath, safeCallbackPath, SIGN_IN_ERROR } from "@/lib/contract/sign-in-messages";

export const dynamic = "force-dynamic";

/** A redirect to a path of this site (a relative Location: the browser resolves it against the page it is on). */
function goTo(path: string): NextResponse {
  return new NextResponse(null, { status: 303, headers: { location: path, "cache-control": "no-store" } });
}

/**
 * The end of the MFA step (lib/contract finishSignInPath). A session whose factors now satisfy every organization
 * goes on under a new id in a new cookie (lib/console/mfa.ts finishSignIn), then to the page it came
 * for; the cookie it had while pending names nothing afterwards. A session still owing a factor goes
 * back to the step, an active one straight on, any other to sign-in. Nothing here acts for anyone but
 * the session the cookie names, and only once it has proven everything asked of it. The id that cookie
 * names was given only to the request that gave the last factor (lib/console/vault.ts
 * recordSessionFactor): a copy of the cookie the session had before cannot finish it.
 */
export async function GET(request: NextRequest): Promise<NextResponse> {
  const callbackPath = safeCallbackPath(request.nextUrl.searchParams.get("callbackUrl"));
  try {
    const state = await sessionStateFromCookies(request.cookies);
    if (state.status === "active") return goTo(callbackPath);
    if (state.status !== "mfa") return goTo(signInPath(state.status));
    const promoted = await finishSignIn(state.session);
    if (!promoted) return goTo(mfaStepPath(callbackPath));
    const cookie = await movedSessionCookie(promoted, state.session);
    const response = goTo(callbackPath);
    response.cookies.set(cookie.name, cookie.value, cookie.options);
    return response;
  } catch (error) {
    // The store away (a restart or failover) or broken: the sign-in page says to try again, not a bare 500. The
    // session is as it was (finishSignIn moves it in one transaction), so signing in again finds it unchanged.
    logAuth("error", "the MFA step could not be finished", error);
    return goTo(signInErrorPath(SIGN_IN_ERROR.gatewayUnavailable));
  }
}
