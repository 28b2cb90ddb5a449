"use client";

import { useSyncExternalStore } from "react";
import { Badge } from "@/components/ui/badge";
import { relativeTime } from "@/lib/relative-time";
import { formatDate, formatDateTime } from "@/lib/utc-date";

const DAY = 86_400_000;

/** Tokens and keys expiring within this many days are flagged. */
export const EXPIRY_WARNING_DAYS = 14;

// The console's one date format (lib/utc-date.ts): YYYY-MM-DD, and YYYY-MM-DD HH:mm UTC.
export { formatDate, formatDateTime };

export function DateText({ value, withTime, empty = "—" }: { value: string | undefined; withTime?: boolean; empty?: string }) {
  if (!value || Number.isNaN(Date.parse(value))) return <span className="text-slate-500 dark:text-slate-400">{empty}</span>;
  return (
    <time dateTime={value} title={formatDateTime(value)}>
      {withTime ? formatDateTime(value) : formatDate(value)}
    </time>
  );
}

const subscribe = () => () => {};

/**
 * False on the server and while the browser hydrates, true from the render after: for text that depends on the browser
 * (its clock, its time zone), written once hydration is done, so both sides first write the same text. (React keeps
 * the server's text through a hydration mismatch that is only hushed, never correcting it.)
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}

/**
 * "3 hours ago"; the exact time in the tooltip. The server, and the browser while it hydrates,
 * write the exact time (the same text on both sides); the relative words follow once the page
 * runs in the browser, so the server's clock and the browser's never have to agree.
 */
export function RelativeTime({ value, empty = "Never" }: { value: string | undefined; empty?: string }) {
  const hydrated = useHydrated();
  if (!value || Number.isNaN(Date.parse(value))) return <span className="text-slate-500 dark:text-slate-400">{empty}</span>;
  return (
    <time dateTime={value} title={formatDateTime(value)}>
      {hydrated ? relativeTime(new Date(value)) : formatDateTime(value)}
    </time>
  );
}

export type ExpiryState = "none" | "ok" | "soon" | "expired";

/** Calendar days (UTC) from today to the day of `iso`: 0 for today, 1 for tomorrow. */
export function daysLeft(iso: string, now = Date.now()): number {
  return Math.round((Date.parse(formatDate(iso)) - Date.parse(formatDate(new Date(now).toISOString()))) / DAY);
}

export function expiryState(iso: string | undefined, now = Date.now()): ExpiryState {
  if (!iso || Number.isNaN(Date.parse(iso))) return "none";
  const left = Date.parse(iso) - now;
  if (left <= 0) return "expired";
  return left <= EXPIRY_WARNING_DAYS * DAY ? "soon" : "ok";
}

/** The expiry date, flagged when it is past or within EXPIRY_WARNING_DAYS. */
export function ExpiryCell({ value, never = "Never" }: { value: string | undefined; never?: string }) {
  const state = expiryState(value);
  if (state === "none" || !value) return <span className="text-slate-500 dark:text-slate-400">{never}</span>;
  const days = daysLeft(value);
  return (
    <span className="inline-flex items-center gap-2">
      <DateText value={value} />
      {state === "expired" ? (
        <Badge tone="bad">Expired</Badge>
      ) : state === "soon" ? (
        <Badge tone="warn" suppressHydrationWarning>
          {days <= 0 ? "Expires today" : days === 1 ? "Expires tomorrow" : `Expires in ${days} days`}
        </Badge>
      ) : null}
    </span>
  );
}
