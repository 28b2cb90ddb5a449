import { createLoader, parseAsNativeArrayOf, parseAsString, parseAsStringLiteral } from "nuqs/server";
import { DAILY_RANGE_LIMIT, RANGE_PRESET_VALUES, resolveRange, type RangeLimit, type RangePreset } from "@/components/spend/date-range";
import type { UsageFilters } from "@/lib/query/usage";

import { MAX_MONTHLY_RANGE_DAYS, MAX_RANGE_DAYS, USAGE_INTERVALS } from "@/lib/contract/constants";

export { USAGE_INTERVALS };

/** The usage page's URL: lists repeat their name once per value, as the usage operation takes them. */
export const usageSearchParams = {
  range: parseAsStringLiteral(RANGE_PRESET_VALUES).withDefault("30d"),
  from: parseAsString,
  to: parseAsString,
  interval: parseAsStringLiteral(USAGE_INTERVALS).withDefault("daily"),
  projects: parseAsNativeArrayOf(parseAsString),
  resource_types: parseAsNativeArrayOf(parseAsString),
  regions: parseAsNativeArrayOf(parseAsString),
  metric: parseAsString,
};

export const loadUsageSearchParams = createLoader(usageSearchParams);

interface UsageUrlState {
  range: RangePreset;
  from: string | null;
  to: string | null;
  interval: UsageFilters["interval"];
  projects: string[];
  resource_types: string[];
  regions: string[];
}

const MONTHLY_RANGE_LIMIT: RangeLimit = { days: MAX_MONTHLY_RANGE_DAYS, error: `Choose at most five years (${MAX_MONTHLY_RANGE_DAYS} days).` };
const DAILY_USAGE_LIMIT: RangeLimit = { days: MAX_RANGE_DAYS, error: `${DAILY_RANGE_LIMIT.error.slice(0, -1)}, or the monthly interval for up to five years.` };

/** The longest custom range of the usage chart: a year by day, five years by month (as the gateway takes them). */
export function usageRangeLimit(interval: UsageFilters["interval"]): RangeLimit {
  return interval === "monthly" ? MONTHLY_RANGE_LIMIT : DAILY_USAGE_LIMIT;
}

/** The usage operation's filters for a URL state, or null while a custom range is not valid. */
export function usageFilters(state: UsageUrlState, today: Date): UsageFilters | null {
  const resolved = resolveRange(state.range, state.from, state.to, today, usageRangeLimit(state.interval));
  if (!resolved.ok) return null;
  return { ...resolved.range, interval: state.interval, projects: state.projects, resource_types: state.resource_types, regions: state.regions };
}
