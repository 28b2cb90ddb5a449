import "server-only";
import type { NextAuthOptions } from "next-auth";
import { NextRequest } from "next/server";
import type { OAuthConfig } from "next-auth/providers/oauth";
import type { TokenSet } from "openid-client";
import { SIGN_IN_ERROR } from "@/lib/contract/sign-in-messages";
import { env } from "@/lib/env";
import { endPreviousSession, getAuthOptions, logAuth, type SignedInUser } from "./auth-options";
import { installOidcNetworkPolicy } from "./oidc-http";
import { clientAddress } from "./rate-limit";
import { SignInError } from "./sign-in";
import { emailClaimsComplete, loadSsoProvider, signInWithSso, ssoProviderForEmail, wellKnownOf, type SsoClaims, type SsoProviderConfig } from "./sso";

/**
 * next-auth options for one SSO provider, built per request: the provider's id is the last segment
 * of /api/auth/signin/<id> and /api/auth/callback/<id> (the redirect URI registered at the
 * provider). next-auth runs the Authorization Code flow with PKCE, state and nonce, and verifies
 * the ID token (signature against the issuer's JWKS, iss, aud, exp, nonce) with openid-client.
 */

// next-auth's openid-client goes only where an OpenID provider may be (oidc-http.ts).
installOidcNetworkPolicy();

/** The scopes asked for: the subject, the e-mail (and whether it is verified), a display name. */
export const SSO_SCOPES = "openid email profile";

export function ssoOAuthProvider(provider: SsoProviderConfig): OAuthConfig<SsoClaims> {
  return {
    id: provider.id,
    name: "SSO",
    type: "oauth",
    wellKnown: wellKnownOf(provider),
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    authorization: { params: { scope: SSO_SCOPES } },
    checks: ["pkce", "state", "nonce"],
    idToken: true,
    userinfo: {
      // Some providers put the e-mail claims in the ID token, others only in userinfo (whose `sub`
      // openid-client holds to the ID token's). The verified ID token's claims win.
      async request({ tokens, client }) {
        // next-auth types the set by its fields; what it hands over is openid-client's TokenSet.
        const verified = tokens as unknown as TokenSet;
        const claims = verified.claims();
        if (emailClaimsComplete(claims)) return claims;
        return { ...(await client.userinfo(verified)), ...claims };
      },
    },
    profile: (claims) => ({
      id: String(claims.sub),
      email: typeof claims.email === "string" ? claims.email : null,
      name: typeof claims.name === "string" ? claims.name : null,
    }),
  };
}

/** The options for a request to this provider's sign-in or callback; null when it is gone or has no client secret. */
export async function ssoAuthOptions(providerId: string, headers: Record<string, string | undefined>): Promise<NextAuthOptions | null> {
  const provider = await loadSsoProvider(providerId);
  if (!provider) return null;
  const base = getAuthOptions();
  const clientIp = clientAddress(headers, env().STRATUS_TRUSTED_PROXY_HOPS);
  return {
    ...base,
    providers: [...base.providers, ssoOAuthProvider(provider)],
    callbacks: {
      ...base.callbacks,
      async signIn({ user, account, profile }) {
        if (account?.provider !== provider.id) return true;
        try {
          const { sessionId, userId, email } = await signInWithSso(provider, (profile ?? {}) as SsoClaims, clientIp);
          await endPreviousSession(headers, sessionId);
          // The jwt callback reads the same object: the cookie then names the vault session, as after a key sign-in.
          const signedIn: SignedInUser = { id: sessionId, email, name: email, userId };
          Object.assign(user, signedIn);
          return true;
        } catch (error) {
          if (error instanceof SignInError) return signInErrorPath(error.code);
          logAuth("error", "SSO sign-in failed", error);
          return signInErrorPath(SIGN_IN_ERROR.gatewayUnavailable);
        }
      },
    },
  };
}

export function signInErrorPath(code: string): string {
  return `/sign-in?error=${encodeURIComponent(code)}`;
}

/** The provider id the sign-in page posts to: /api/auth/signin/sso, with the person's e-mail. */
export const SSO_START = "sso";

/** A refusal, as next-auth answers: JSON `{ url }` to its browser client, else a redirect to the sign-in page saying why. */
export function signInErrorAnswer(code: string, json = false): Response {
  const path = signInErrorPath(code);
  return json ? Response.json({ url: path }) : new Response(null, { status: 302, headers: { Location: path } });
}

export type NextAuthCall = (request: NextRequest, nextauth: string[], options: NextAuthOptions) => Promise<Response>;

/**
 * POST /api/auth/signin/sso (csrfToken, callbackUrl, email): the e-mail's domain picks the
 * organization's provider, then next-auth's own sign-in for that provider runs (its CSRF check,
 * the state, PKCE and nonce cookies, the redirect to the provider), with the e-mail as login_hint.
 */
export async function startSsoSignIn(request: NextRequest, headers: Record<string, string | undefined>, run: NextAuthCall): Promise<Response> {
  const form = new URLSearchParams(await request.text());
  const json = form.get("json") === "true";
  try {
    const { providerId, email } = await ssoProviderForEmail(form.get("email"));
    const options = await ssoAuthOptions(providerId, headers);
    if (!options) return signInErrorAnswer(SIGN_IN_ERROR.ssoNotReady, json);
    form.delete("email");
    const url = new URL(request.nextUrl.pathname.replace(/\/sso$/, `/${providerId}`), request.nextUrl.origin);
    url.searchParams.set("login_hint", email);
    const forwardedHeaders = new Headers(request.headers);
    forwardedHeaders.delete("content-length");
    // The body forwarded is a form, whatever the request said it sent (next-auth parses it by this header).
    forwardedHeaders.set("content-type", "application/x-www-form-urlencoded");
    const forwarded = new NextRequest(url, { method: "POST", headers: forwardedHeaders, body: form.toString() });
    return await run(forwarded, ["signin", providerId], options);
  } catch (error) {
    if (error instanceof SignInError) return signInErrorAnswer(error.code, json);
    logAuth("error", "SSO sign-in could not start", error);
    return signInErrorAnswer(SIGN_IN_ERROR.gatewayUnavailable, json);
  }
}
