import { daysBetween, MAX_RANGE_DAYS } from "@/lib/contract/constants";
import { EARLIEST } from "@/lib/contract/time";
import { badRequest } from "../../errors";

const DAY_MS = 86_400_000;

/** YYYY-MM-DD of a UTC instant. */
export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/**
 * The period of a usage or cost chart: as given, else the 30 days up to today (UTC); at most
 * `maxDays` (MAX_RANGE_DAYS for a daily chart: its answer holds every day's points at once).
 */
export function dateRange(start: string | undefined, end: string | undefined, now = new Date(), maxDays = MAX_RANGE_DAYS): { startDate: string; endDate: string } {
  const endDate = end ?? isoDate(now);
  const startDate = start ?? isoDate(new Date(Math.max(EARLIEST, Date.parse(`${endDate}T00:00:00Z`) - 29 * DAY_MS)));
  if (startDate > endDate) throw badRequest("query.start_date", `must not be after end_date (${endDate})`);
  const days = daysBetween(startDate, endDate);
  if (days > maxDays) {
    throw badRequest("query.start_date", `the period must be at most ${maxDays} days, end_date included (it is ${days})`);
  }
  return { startDate, endDate };
}
