import { daysBetween, MAX_RANGE_DAYS } from "@/lib/contract/constants";
import type { DayRange } from "@/lib/query/billing";

export { daysBetween, MAX_RANGE_DAYS };

/**
 * A real calendar day YYYY-MM-DD from 0001-01-01 to 9999-12-31: what the contract's
 * dateSchema accepts, checked without zod, which this module (on the billing and
 * usage pages' first load) would otherwise bring along.
 */
export function isIsoDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || value < "0001-01-01") return false;
  const t = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === value;
}

/** The ranges a user picks from; dates are UTC days, as the gateway meters them. */
export const RANGE_PRESETS = [
  { value: "mtd", label: "Month to date" },
  { value: "last-month", label: "Last month" },
  { value: "30d", label: "Last 30 days" },
  { value: "90d", label: "Last 90 days" },
  { value: "custom", label: "Custom" },
] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number]["value"];
export const RANGE_PRESET_VALUES = RANGE_PRESETS.map((p) => p.value) as [RangePreset, ...RangePreset[]];

const DAY_MS = 86_400_000;

export function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function utcMidnight(d: Date): number {
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}

export type ResolvedRange = { ok: true; range: DayRange } | { ok: false; error: string };

/** The longest custom range a chart takes, and how a longer one is refused. */
export interface RangeLimit {
  days: number;
  error: string;
}

/** A daily chart's: a year and a day (the gateway's MAX_RANGE_DAYS). */
export const DAILY_RANGE_LIMIT: RangeLimit = { days: MAX_RANGE_DAYS, error: `Choose at most ${MAX_RANGE_DAYS} days.` };

/** The days a preset (or a custom from/to) stands for on a given day; a custom range is held to `limit`. */
export function resolveRange(preset: RangePreset, from: string | null, to: string | null, today = new Date(), limit = DAILY_RANGE_LIMIT): ResolvedRange {
  const t = utcMidnight(today);
  const y = today.getUTCFullYear();
  const m = today.getUTCMonth();
  switch (preset) {
    case "mtd":
      return { ok: true, range: { start_date: isoDay(Date.UTC(y, m, 1)), end_date: isoDay(t) } };
    case "last-month":
      return { ok: true, range: { start_date: isoDay(Date.UTC(y, m - 1, 1)), end_date: isoDay(Date.UTC(y, m, 0)) } };
    case "30d":
      return { ok: true, range: { start_date: isoDay(t - 29 * DAY_MS), end_date: isoDay(t) } };
    case "90d":
      return { ok: true, range: { start_date: isoDay(t - 89 * DAY_MS), end_date: isoDay(t) } };
    case "custom": {
      if (!from || !to) return { ok: false, error: "Choose both a start and an end date." };
      if (!isIsoDate(from)) return { ok: false, error: "The start date must be a valid date (YYYY-MM-DD)." };
      if (!isIsoDate(to)) return { ok: false, error: "The end date must be a valid date (YYYY-MM-DD)." };
      if (from > to) return { ok: false, error: "The start date must not be after the end date." };
      if (daysBetween(from, to) > limit.days) return { ok: false, error: limit.error };
      return { ok: true, range: { start_date: from, end_date: to } };
    }
  }
}

/** Every day of a range, in order. */
export function eachDay(range: DayRange): string[] {
  const days: string[] = [];
  const end = Date.parse(`${range.end_date}T00:00:00Z`);
  for (let d = Date.parse(`${range.start_date}T00:00:00Z`); d <= end; d += DAY_MS) days.push(isoDay(d));
  return days;
}

/** Month-to-date run rate: the spend so far, spread evenly over the whole month. */
export function monthEndForecastCents(mtdCents: number, today = new Date()): { forecastCents: number; daysElapsed: number; daysInMonth: number } {
  const daysInMonth = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 0)).getUTCDate();
  const daysElapsed = today.getUTCDate();
  return { forecastCents: Math.round((mtdCents / daysElapsed) * daysInMonth), daysElapsed, daysInMonth };
}
