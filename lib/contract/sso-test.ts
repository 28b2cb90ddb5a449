/**
 * "Test sign-in" of an SSO provider: the console runs the OpenID Connect Authorization Code flow
 * against the provider in a popup and reports each step, without signing anyone in. Shared by
 * the console's server (lib/console/sso-test.ts) and the SSO page. Browser-safe and free of zod (the
 * request's schema is in lib/console/sso-test.ts), so the SSO page's first load carries no zod.
 */

/** POST /api/sso-test: which provider of which organization to test. */
export const SSO_TEST_START_PATH = "/api/sso-test";

export interface SsoTestStartRequest {
  organization_id: string;
  provider_id: string;
}

/** The steps, in the order they run. */
export const SSO_TEST_STEPS = [
  { id: "discovery", name: "Discovery" },
  { id: "redirect", name: "Redirect" },
  { id: "token", name: "Token" },
  { id: "id_token", name: "ID token" },
  { id: "email_domain", name: "E-mail domain" },
] as const;

export type SsoTestStepId = (typeof SSO_TEST_STEPS)[number]["id"];
export type SsoTestStepStatus = "passed" | "failed" | "not_run";

export interface SsoTestStep {
  id: SsoTestStepId;
  name: string;
  status: SsoTestStepStatus;
  /** What was checked, or why it failed (never a token, a code or a secret). */
  detail: string;
}

/** The claims the test shows, in order; Entra ID's xms_edov and Google's hd only when the provider sends them. */
export const SSO_TEST_CLAIM_NAMES = ["sub", "email", "email_verified", "xms_edov", "hd", "name"] as const;
export const SSO_TEST_CLAIMS_WHEN_SENT: ReadonlySet<string> = new Set(["xms_edov", "hd"]);

/** The claims the verified ID token (completed from userinfo) names; shown to the admin. */
export interface SsoTestClaims {
  sub?: string;
  email?: string;
  email_verified?: boolean | string;
  /** Entra ID's "e-mail domain owner verified", sent in place of email_verified. */
  xms_edov?: boolean | string;
  /** Google's hosted domain: the Workspace that manages the account. */
  hd?: string;
  name?: string;
}

export interface SsoTestReport {
  test_id: string;
  provider_id: string;
  /** Every step passed. */
  ok: boolean;
  steps: SsoTestStep[];
  claims?: SsoTestClaims;
}

/** The start's answer: a report already (discovery failed), or the provider's authorization URL to open. */
export type SsoTestStartResponse = { test_id: string; report: SsoTestReport } | { test_id: string; authorization_url: string };

/**
 * The popup's result page posts the report on this BroadcastChannel (same origin only, by the
 * browser's rules); the SSO page takes the report whose test_id it started. A channel rather than
 * window.opener: the console's Cross-Origin-Opener-Policy (same-origin) severs the popup from its
 * opener once it goes to the provider.
 */
export const SSO_TEST_CHANNEL = "stratus-sso-test";

export function isSsoTestReport(value: unknown): value is SsoTestReport {
  if (!value || typeof value !== "object") return false;
  const report = value as Partial<SsoTestReport>;
  return typeof report.test_id === "string" && typeof report.provider_id === "string" && typeof report.ok === "boolean" && Array.isArray(report.steps);
}
