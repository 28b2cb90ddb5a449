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
} as const;

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
    case "SessionRequired":
      return "Sign in to continue";
    default:
      return "Sign-in failed; try again";
  }
}

/** Why the user was sent to sign-in (?reason=). */
export const SIGN_IN_REASONS = {
  expired: "Your session has expired; sign in again",
  revoked: "Your API key was revoked or expired; sign in again",
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

/** Where to go after sign-in: absent, `fallback`; not a same-site path, "/"; never back to sign-in or an API. */
export function safeCallbackPath(value: string | null | undefined, fallback = "/orgs"): string {
  if (!value) return fallback;
  const path = sameSitePath(value);
  if (path === null) return "/";
  if (path.startsWith("/sign-in") || path.startsWith("/api/")) return fallback;
  return path;
}
