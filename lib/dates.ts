/**
 * The few date formats the console shows, in the browser's zone, written out
 * instead of a date library (whose format() and locale data would ride along in
 * every page that shows a date) or Intl (whose first use costs a page its locale
 * data load; see lib/format.ts).
 */
const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, "0");

/** "+02:00", "-05:30", "+00:00": the zone offset of `date` (date-fns' "xxx"). */
export function zoneOffset(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  return `${minutes < 0 ? "-" : "+"}${pad(Math.trunc(minutes / 60))}:${pad(minutes % 60)}`;
}

/** "2025-03-14" in the browser's zone. */
export function localDate(date: Date): string {
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** "2025-03-14 09:05", or "2025-03-14 09:05:07" with seconds, in the browser's zone. */
export function localDateTime(date: Date, seconds = false): string {
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}${seconds ? `:${pad(date.getSeconds())}` : ""}`;
  return `${localDate(date)} ${time}`;
}

/** RFC 3339 with the browser's offset, "Z" in UTC (date-fns' formatRFC3339). */
export function rfc3339(date: Date): string {
  const offset = date.getTimezoneOffset() === 0 ? "Z" : zoneOffset(date);
  return `${localDate(date)}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}${offset}`;
}

/** A datetime-local value ("2025-03-14T09:00", read as UTC) as an RFC 3339 timestamp. */
export function localToRfc3339(value: string): string {
  return value.length === 16 ? `${value}:00Z` : `${value}Z`;
}

/** An RFC 3339 timestamp as a datetime-local value in UTC. */
export function rfc3339ToLocal(value: string | null | undefined): string {
  if (!value) return "";
  const t = Date.parse(value);
  return Number.isNaN(t) ? "" : new Date(t).toISOString().slice(0, 16);
}
