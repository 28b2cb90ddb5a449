/**
 * "3 hours ago", "in 2 days": the largest whole unit, rounded, as date-fns'
 * formatDistanceToNowStrict with addSuffix words it, in Intl.RelativeTimeFormat's
 * English (lib/format.ts), without a date library's locale data.
 */
import { formatRelative, type RelativeTimeUnit } from "@/lib/format";

const UNITS: Array<[RelativeTimeUnit, number]> = [
  ["year", 365 * 86_400],
  ["month", 30 * 86_400],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
];

export function relativeTime(date: Date, now: Date = new Date()): string {
  const seconds = (date.getTime() - now.getTime()) / 1000;
  const abs = Math.abs(seconds);
  for (const [unit, size] of UNITS) {
    if (abs >= size) return formatRelative(Math.round(seconds / size), unit);
  }
  // Under a minute, and "0 seconds ago" rather than "in 0 seconds".
  const whole = Math.round(seconds);
  return formatRelative(whole === 0 ? -0 : whole, "second");
}
