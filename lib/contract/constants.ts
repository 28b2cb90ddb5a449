/**
 * The contract's enumerations, free of zod: the schemas in lib/contract build their enums from
 * these lists, and browser code reads them here instead of copying them (importing a schema
 * module would bring zod into a page's first load).
 */

/**
 * The longest period of a usage or cost chart, in days (both ends included): a year and a day,
 * so that a leap year fits. The console offers no longer range; the gateway refuses one, since a
 * chart's answer holds every day's points at once (a CSV export streams, and takes any period).
 */
export const MAX_RANGE_DAYS = 366;

/**
 * The longest period of a monthly usage chart: five years (a leap day each), at most 62 points a series (a calendar
 * month begun counts), far fewer than a daily chart's 366. The console's usage chart takes it by month (usageRangeLimit).
 */
export const MAX_MONTHLY_RANGE_DAYS = 5 * 366;

/** Days from one YYYY-MM-DD date to another, both included: how MAX_RANGE_DAYS is counted, in the console and the gateway alike. */
export function daysBetween(start: string, end: string): number {
  return Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000) + 1;
}

/** Reservation statuses, in the order the console offers them. */
export const RESERVATION_STATUSES = ["effective", "pending", "expired", "cancelled"] as const;
export type ReservationStatus = (typeof RESERVATION_STATUSES)[number];

/** Second-factor methods an organization can require. */
export const MFA_METHODS = ["totp", "webauthn"] as const;
export type MfaMethod = (typeof MFA_METHODS)[number];

/** Where the SCIM 2.0 service provider answers, on the gateway and on the console's origin. */
export const SCIM_BASE_PATH = "/scim/v2";

/** Statuses of a SCIM integration. */
export const SCIM_STATUSES = ["active", "inactive"] as const;
export type ScimStatus = (typeof SCIM_STATUSES)[number];

/** Where a role binding applies. */
export const SCOPE_TYPES = ["org", "project"] as const;
export type ScopeType = (typeof SCOPE_TYPES)[number];

/** Granularity of a usage report. */
export const USAGE_INTERVALS = ["daily", "monthly"] as const;
export type UsageInterval = (typeof USAGE_INTERVALS)[number];

/** The audit-log search's list filters, in the spec's order; each is sent comma-separated. */
export const AUDIT_LIST_FILTERS = [
  "project_ids",
  "actions",
  "actor_ids",
  "actor_emails",
  "actor_types",
  "target_ids",
  "target_types",
  "target_names",
  "locations",
  "results",
  "results_not",
  "surfaces",
] as const;
export type AuditListFilter = (typeof AUDIT_LIST_FILTERS)[number];

/** A person's standing in an organization. */
export const PERSON_STATUSES = ["active", "suspended"] as const;
export type PersonStatus = (typeof PERSON_STATUSES)[number];

/** How a person came to an organization. */
export const PERSON_SOURCES = ["invite", "scim", "sso", "admin"] as const;
export type PersonSource = (typeof PERSON_SOURCES)[number];

/** Permission names a role may grant (the gateway's authorization reads the same list). */
export const PERMISSION_NAMES = [
  "organization.update",
  "projects.create",
  "projects.read",
  "projects.update",
  "projects.delete",
  "iam.read",
  "iam.write",
  "scim.manage",
  "s3.manage",
  "sso.manage",
  "mfa.manage",
  "billing.read",
  "audit.read",
] as const;
export type PermissionName = (typeof PERMISSION_NAMES)[number];

/** Where a provider sends the browser back after sign-in: register this at the provider. */
export function ssoRedirectUri(consoleOrigin: string, providerId: string): string {
  return `${consoleOrigin.replace(/\/+$/, "")}/api/auth/callback/${providerId}`;
}
