/**
 * Formatting shared by the reservation pages. Dates are shown in UTC so the
 * server's render and the browser's hydration agree.
 */
import { formatDate, formatDateTime } from "@/lib/utc-date";
import { formatUsd } from "@/lib/format";

/** "2025-03-14" from an RFC 3339 timestamp; "—" when absent (the console's one format, lib/format.ts). */
export const utcDate = formatDate;

/** "2025-03-14 09:00 UTC" from an RFC 3339 timestamp. */
export const utcDateTime = formatDateTime;


/** A decimal-string or numeric price as dollars, without summing floats. */
export function price(value: string | number): string {
  const n = typeof value === "number" ? value : Number(value);
  return Number.isFinite(n) ? formatUsd(n, { minimumFractionDigits: 2, maximumFractionDigits: 4 }) : String(value);
}

export function percent(part: number, whole: number): string {
  if (whole <= 0) return "—";
  return `${Math.round((part / whole) * 100)}%`;
}
