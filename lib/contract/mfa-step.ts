/**
 * The two facts every page's fetcher needs about the second factor, kept apart from the sign-in
 * page's messages (lib/contract/sign-in-messages.ts) so that those stay out of every page's first load.
 */

/** The reason a /api/cloud call of a session that still owes its second factor is refused with (401). */
export const MFA_REQUIRED = "mfa_required";

/** Where the second factor is asked for. */
export const MFA_STEP_PATH = "/sign-in/mfa";

/** The MFA step, on its way to `callbackPath` once the factor is given. */
export function mfaStepPath(callbackPath: string): string {
  return `${MFA_STEP_PATH}?callbackUrl=${encodeURIComponent(callbackPath)}`;
}
