/**
 * The console's one date format, in UTC (lib/dates.ts holds the few shown in the browser's zone).
 * A module of its own: a page that shows dates does not load the number formats (lib/format.ts).
 */

/**
 * The console's one date format: "2025-03-14", in UTC, so the server and every browser write the
 * same text (no hydration mismatch) and a date reads the same on every page. "—" for no date.
 */
export function formatDate(iso: string | null | undefined): string {
  const t = iso ? Date.parse(iso) : Number.NaN;
  return Number.isNaN(t) ? "—" : new Date(t).toISOString().slice(0, 10);
}

/** An instant in the same format: "2025-03-14 09:05 UTC". */
export function formatDateTime(iso: string | null | undefined): string {
  const t = iso ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(t)) return "—";
  const s = new Date(t).toISOString();
  return `${s.slice(0, 10)} ${s.slice(11, 16)} UTC`;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/**
 * "March": the UTC month of an instant (Intl's en-US long month, written out: see lib/format.ts for
 * why). UTC as the billing periods are: noon UTC of a month's last day is already the next month's
 * first day east of UTC+12.
 */
export function formatMonth(date: Date): string {
  return MONTHS[date.getUTCMonth()]!;
}
