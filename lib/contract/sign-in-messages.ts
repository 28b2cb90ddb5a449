/**
 * What the sign-in page may say. Errors travel as short codes (next-auth puts them
 * in ?error=), never as free text, so a crafted link cannot put words on the page.
 * Browser-safe: no server imports.
 */
export const SIGN_IN_ERROR = {
  invalidKey: "invalid_key",
  gatewayUnavailable: "gateway_unavailable",
  demoUnavailable: "demo_unavailable",
  rateLimitedPrefix: "rate_limited:",
  ssoEmailInvalid: "sso_email",
  ssoNoProvider: "sso_no_provider",
  ssoDomainAmbiguous: "sso_domain_ambiguous",
  ssoNotReady: "sso_not_ready",
  ssoUnavailable: "sso_unavailable",
  ssoProviderGone: "sso_provider_gone",
  ssoEmailUnverified: "sso_email_unverified",
  ssoEmailMissing: "sso_email_missing",
  ssoAccountUnmanaged: "sso_account_unmanaged",
  ssoRefusedByProvider: "sso_refused",
  ssoEmailUnusable: "sso_email_unusable",
  ssoWrongDomain: "sso_wrong_domain",
  ssoSuspended: "sso_suspended",
  ssoRequired: "sso_required",
  mfaUnavailable: "mfa_unavailable",
  ssoUserNameTaken: "sso_user_name_taken",
  ssoOwnerUntrusted: "sso_owner_untrusted",
  ssoIssuerMismatch: "sso_issuer",
  ssoIdentityChanged: "sso_identity",
  /** next-auth's own: the provider could not be reached to start a sign-in. */
  ssoStartFailed: "OAuthSignin",
  /** next-auth's own: the provider's answer failed a check (state, PKCE, ID token signature, iss, aud, exp, nonce). */
  ssoCallbackFailed: "OAuthCallback",
} as const;

export { MFA_REQUIRED, MFA_STEP_PATH, mfaStepPath } from "./mfa-step";

/** Why a session signed in through the SSO of an organization the account joined later may not change its second factors. */
export const FACTORS_MANAGED_ELSEWHERE =
  "Your second factors belong to the organization you joined first: sign in with your API key, or through that organization's single sign-on, to change them";

export function rateLimitedCode(minutes: number): string {
  return `${SIGN_IN_ERROR.rateLimitedPrefix}${minutes}`;
}

export function signInErrorMessage(code: string | null | undefined): string | null {
  if (!code) return null;
  if (code.startsWith(SIGN_IN_ERROR.rateLimitedPrefix)) {
    const minutes = Number(code.slice(SIGN_IN_ERROR.rateLimitedPrefix.length));
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > 24 * 60) return "Too many attempts, try again later";
    return `Too many attempts, try again in ${minutes} ${minutes === 1 ? "minute" : "minutes"}`;
  }
  switch (code) {
    case SIGN_IN_ERROR.invalidKey:
    case "CredentialsSignin":
      return "The access key or secret is not valid";
    case SIGN_IN_ERROR.gatewayUnavailable:
      return "The platform could not be reached; try again in a moment";
    case SIGN_IN_ERROR.demoUnavailable:
      return "Demo sign-in is not available here";
    case SIGN_IN_ERROR.ssoRequired:
      return "Your organization requires you to sign in with SSO: use \u201cSign in with SSO\u201d with your work e-mail";
    case SIGN_IN_ERROR.mfaUnavailable:
      return "Your organization requires a second factor, which this console cannot ask for (it reaches a remote gateway); ask your administrator which console to use";
    case SIGN_IN_ERROR.ssoEmailInvalid:
      return "Enter your work e-mail address";
    case SIGN_IN_ERROR.ssoNoProvider:
      return "No organization signs in with SSO for that e-mail domain";
    case SIGN_IN_ERROR.ssoDomainAmbiguous:
      return "More than one organization claims that e-mail domain for SSO, so it cannot sign in; ask your administrator";
    case SIGN_IN_ERROR.ssoNotReady:
      return "Your organization's SSO provider has no client secret yet; ask your administrator to finish setting it up";
    case SIGN_IN_ERROR.ssoUnavailable:
      return "Single sign-on is not available on this console";
    case SIGN_IN_ERROR.ssoProviderGone:
      return "That SSO provider no longer exists; sign in again";
    case SIGN_IN_ERROR.ssoEmailUnusable:
      return "Your identity provider sent an e-mail address that is not one (or has invisible characters); ask your administrator";
    case SIGN_IN_ERROR.ssoEmailUnverified:
      return "Your identity provider has not verified your e-mail address, so it cannot sign you in here";
    case SIGN_IN_ERROR.ssoEmailMissing:
      return "Your identity provider sent no e-mail address for you (an account without a mailbox, or the e-mail claim not released), so it cannot sign you in here; ask your administrator";
    case SIGN_IN_ERROR.ssoRefusedByProvider:
      return "Your identity provider did not sign you in to this console (you may not be assigned to it, or the sign-in was cancelled there); ask your administrator";
    case SIGN_IN_ERROR.ssoAccountUnmanaged:
      return "That Google account is a personal one, not one your organization's Google Workspace manages; sign in with your work account";
    case SIGN_IN_ERROR.ssoWrongDomain:
      return "Your identity provider answered with an e-mail address outside your organization's SSO domains";
    case SIGN_IN_ERROR.ssoUserNameTaken:
      return "Another person of your organization already has your e-mail address as their user name in its directory, so it cannot sign you in; ask your administrator";
    case SIGN_IN_ERROR.ssoOwnerUntrusted:
      return "You own this organization, and its SSO provider was added by someone who does not: sign in with your API key, and add the provider again yourself to sign in with it";
    case SIGN_IN_ERROR.ssoIssuerMismatch:
      return "Your organization's SSO provider answered as another issuer than the one set up for it; ask your administrator to run its Test sign-in";
    case SIGN_IN_ERROR.ssoIdentityChanged:
      return "Your identity provider signs you in as someone other than the person who signed in here before with this e-mail address (the address passed to someone else, or yours changed); ask your administrator to remove that person from the organization, then sign in again";
    case SIGN_IN_ERROR.ssoSuspended:
      return "Your membership of this organization is suspended; ask your administrator";
    case SIGN_IN_ERROR.ssoStartFailed:
      return "The SSO provider could not be reached; try again in a moment";
    case SIGN_IN_ERROR.ssoCallbackFailed:
      return "The SSO provider's answer could not be verified; sign in again";
    case "SessionRequired":
      return "Sign in to continue";
    default:
      return "Sign-in failed; try again";
  }
}

/** Why the user was sent to sign-in (?reason=). */
export const SIGN_IN_REASONS = {
  expired: "Your session has expired; sign in again",
  revoked: "Your API key was revoked or expired, or your sign-in provider was removed; sign in again",
  "signed-out": "You have signed out",
  required: "Sign in to continue",
} as const;

export type SignInReason = keyof typeof SIGN_IN_REASONS;

export function signInReasonMessage(reason: string | null | undefined): string | null {
  return reason && Object.hasOwn(SIGN_IN_REASONS, reason) ? SIGN_IN_REASONS[reason as SignInReason] : null;
}

/** Any control, format (bidi, zero-width), separator or whitespace character, and the backslash browsers read as "/". */
const UNSAFE_IN_CALLBACK = /[\p{Cc}\p{Cf}\p{Z}\s\\]/u;
const LOCAL_ORIGIN = "http://console.invalid";

/**
 * A path that, resolved against this site's origin, stays on it, with no control,
 * format or whitespace character anywhere (browsers drop tabs and newlines from URLs,
 * so "/\t/host" is "//host"); null for anything else. The answer is the parsed path,
 * so what the browser resolves is what was checked.
 */
export function sameSitePath(value: string): string | null {
  if (value.length > 2048 || !value.startsWith("/") || value.startsWith("//") || UNSAFE_IN_CALLBACK.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value, LOCAL_ORIGIN);
  } catch {
    return null;
  }
  if (url.origin !== LOCAL_ORIGIN) return null;
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (!path.startsWith("/") || path.startsWith("//") || UNSAFE_IN_CALLBACK.test(path)) return null;
  return path;
}

/**
 * Where a session that has given its second factor finishes signing in (app/(auth)/sign-in/finish:
 * the session moves to a new id and cookie), on its way to `callbackPath`.
 */
export function finishSignInPath(callbackPath: string): string {
  return `/sign-in/finish?callbackUrl=${encodeURIComponent(callbackPath)}`;
}

/** Where to go after sign-in: absent, `fallback`; not a same-site path, "/"; never back to sign-in or an API. */
export function safeCallbackPath(value: string | null | undefined, fallback = "/orgs"): string {
  if (!value) return fallback;
  const path = sameSitePath(value);
  if (path === null) return "/";
  if (path.startsWith("/sign-in") || path.startsWith("/api/")) return fallback;
  return path;
}
