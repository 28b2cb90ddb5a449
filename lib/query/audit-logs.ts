import { queryOptions } from "@tanstack/react-query";
import { rfc3339 } from "@/lib/dates";
import type { z } from "zod";
import type { auditLogsGetResponseSchema, logEntrySchema } from "@/lib/contract/audit-logs";
import { apiFetch, toQueryString, type QueryParams } from "./fetcher";
import { auditKeys } from "./keys";
import { AUDIT_LIST_FILTERS, type AuditListFilter } from "@/lib/contract/constants";
import { operationPath } from "@/lib/contract/operations";

export type AuditLogsResponse = z.infer<typeof auditLogsGetResponseSchema>;
export type LogEntry = z.infer<typeof logEntrySchema>;

/** Relative windows end now; "custom" takes the absolute from/to of the search. */
export const AUDIT_WINDOWS = [
  { value: "1h", label: "Last hour", ms: 3_600_000 },
  { value: "1d", label: "Last day", ms: 86_400_000 },
  { value: "7d", label: "Last 7 days", ms: 7 * 86_400_000 },
  { value: "30d", label: "Last 30 days", ms: 30 * 86_400_000 },
  { value: "custom", label: "Custom range", ms: 0 },
] as const;
export type AuditWindow = (typeof AUDIT_WINDOWS)[number]["value"];
export const AUDIT_WINDOW_VALUES = AUDIT_WINDOWS.map((w) => w.value) as [AuditWindow, ...AuditWindow[]];
export const DEFAULT_AUDIT_WINDOW: AuditWindow = "1d";

export const AUDIT_PAGE_SIZES = [10, 20, 50, 100] as const;
export type AuditPageSize = (typeof AUDIT_PAGE_SIZES)[number];

export { AUDIT_LIST_FILTERS, type AuditListFilter } from "@/lib/contract/constants";

export type AuditSearch = Record<AuditListFilter, string[]> & {
  window: AuditWindow;
  /** RFC 3339 with offset, for the custom window. */
  from: string | null;
  to: string | null;
  limit: AuditPageSize;
  next: string | null;
  prev: string | null;
};

/** The gateway query of a search at a given moment (relative windows are measured back from it). */
export function auditQueryParams(s: AuditSearch, now: Date): QueryParams {
  const query: QueryParams = {};
  for (const name of AUDIT_LIST_FILTERS) if (s[name].length) query[name] = s[name].join(",");
  if (s.window === "custom") {
    if (s.from) query.start_time = s.from;
    if (s.to) query.end_time = s.to;
  } else {
    const ms = AUDIT_WINDOWS.find((w) => w.value === s.window)?.ms ?? 86_400_000;
    query.start_time = rfc3339(new Date(now.getTime() - ms));
  }
  query.limit = String(s.limit);
  if (s.next) query.next_token = s.next;
  else if (s.prev) query.prev_token = s.prev;
  return query;
}

/**
 * One page of the audit log. The key names the window ("1d"), not its instants,
 * so the page the server prefetched is the one the browser reads; the browser
 * measures the window from the moment it fetches.
 */
export function auditLogQuery(orgId: string, s: AuditSearch, now = new Date()) {
  const path = operationPath("getAuditLogs", { organization_id: orgId });
  const filters: Record<string, string | string[] | number | undefined> = { window: s.window, limit: s.limit };
  for (const name of AUDIT_LIST_FILTERS) if (s[name].length) filters[name] = s[name];
  if (s.window === "custom") Object.assign(filters, { from: s.from ?? undefined, to: s.to ?? undefined });
  if (s.next) filters.next = s.next;
  else if (s.prev) filters.prev = s.prev;
  return {
    ...queryOptions({
      queryKey: auditKeys.search(orgId, filters),
      queryFn: () => apiFetch<AuditLogsResponse>(path, { query: auditQueryParams(s, new Date()) }),
    }),
    path: `${path}${toQueryString(auditQueryParams(s, now))}`,
  };
}
