/**
 * "3 hours ago", "in 2 days": the largest whole unit, rounded, as date-fns'
 * formatDistanceToNowStrict with addSuffix words it, in Intl.RelativeTimeFormat's
 * English, without a date library's locale data (and without Intl's: see lib/format.ts).
 * Whole numbers only, so the decimal formats of lib/format.ts stay out of every page
 * that shows a relative time.
 */

export type RelativeTimeUnit = "year" | "month" | "day" | "hour" | "minute" | "second";

/**
 * "in 3 hours", "1 day ago", "0 seconds ago" — Intl.RelativeTimeFormat("en", { numeric: "always" })
 * for a whole number of units (a safe integer; -0 is past, as Intl has it).
 */
export function formatRelative(value: number, unit: RelativeTimeUnit): string {
  const count = Math.abs(value);
  const words = `${String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ",")} ${unit}${count === 1 ? "" : "s"}`;
  return value < 0 || Object.is(value, -0) ? `${words} ago` : `in ${words}`;
}

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
