"use client";

import { useHydrated } from "@/components/common/dates";
import { formatInstant, formatInstantUtc } from "./format";

/**
 * An instant in the reader's own zone, with its offset (`2025-03-14 09:30:12 +01:00`): written in UTC by the server and
 * until the page is hydrated (the same text on both sides, and the same format: a reader in UTC sees no change), then
 * in the browser's zone.
 */
export function LocalInstant({ value, className }: { value: string; className?: string }) {
  const hydrated = useHydrated();
  return (
    <time dateTime={value} className={className}>
      {hydrated ? formatInstant(value) : formatInstantUtc(value)}
    </time>
  );
}
