import type { z } from "zod";
import type { customerOrganizationUsageSchema, usageIntervalSchema, usageOptionsSchema } from "@/lib/contract/usage";
import { apiFetch, apiUrl } from "./fetcher";
import { gatewayQuery, gatewaySummaryQuery } from "./gateway-query";
import { usageKeys } from "./keys";
import { operationPath } from "@/lib/contract/operations";

export type UsageReport = z.infer<typeof customerOrganizationUsageSchema>;
export type UsageItem = UsageReport["items"][number];
export type UsageOptions = z.infer<typeof usageOptionsSchema>;
export type UsageInterval = z.infer<typeof usageIntervalSchema>;

export interface UsageFilters {
  projects: string[];
  resource_types: string[];
  regions: string[];
  start_date: string;
  end_date: string;
  interval: UsageInterval;
}

/** The usage operation's query for the filters: arrays repeat their name once per value; empty means all. */
function usageQuery(f: UsageFilters) {
  return {
    projects: f.projects.length ? f.projects : undefined,
    resource_types: f.resource_types.length ? f.resource_types : undefined,
    regions: f.regions.length ? f.regions : undefined,
    start_date: f.start_date,
    end_date: f.end_date,
    interval: f.interval,
  };
}

export const usageQueries = {
  /** GET …/usage, of which the cache holds only what `summarize` makes of it (the usage page's summary: a month of daily rows is over a megabyte). */
  summary: <T,>(orgId: string, f: UsageFilters, summarize: (report: UsageReport) => T) => {
    const query = usageQuery(f);
    return gatewaySummaryQuery([...usageKeys.report(orgId, { ...query }), "summary"] as const, operationPath("getUsage", { org_id: orgId }), query, summarize);
  },
  /** GET …/usage/options: the values each filter can take, and the span of the data. */
  options: (orgId: string) => gatewayQuery<UsageOptions, ReturnType<typeof usageKeys.options>>(usageKeys.options(orgId), operationPath("getUsageOptions", { organization_id: orgId })),
};

export interface UsageExportFilters {
  projects: string[];
  resources: string[];
  resource_types: string[];
  regions: string[];
  start_date: string;
  end_date: string;
}

/** The backend-for-frontend URL of the resource-level usage CSV (every list is required by the operation). */
export function usageExportUrl(orgId: string, f: UsageExportFilters): string {
  return apiUrl(operationPath("getUsageExport", { organization_id: orgId }), { ...f });
}

/** The most resources one usage export names (the operation's limit). */
export const USAGE_EXPORT_MAX_RESOURCES = 100;

/**
 * The selection as the usage export requires it, every list filled: the projects, resource types
 * and regions with usage in it, and its resources, as GET …/usage/options?with_resources=true
 * answers for the page's filters (an empty filter is every value).
 */
export async function usageExportSelection(
  orgId: string,
  f: Omit<UsageExportFilters, "resources">,
): Promise<UsageExportFilters> {
  const answer = await apiFetch<UsageOptions>(operationPath("getUsageOptions", { organization_id: orgId }), {
    query: {
      projects: f.projects.length ? f.projects : undefined,
      resource_types: f.resource_types.length ? f.resource_types : undefined,
      regions: f.regions.length ? f.regions : undefined,
      start_date: f.start_date,
      end_date: f.end_date,
      with_resources: "true",
    },
  });
  return {
    projects: answer.projects,
    resource_types: answer.resource_types,
    regions: answer.regions,
    resources: answer.resources ?? [],
    start_date: f.start_date,
    end_date: f.end_date,
  };
}
