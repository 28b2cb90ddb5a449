import { localDateTime, zoneOffset } from "@/lib/dates";

/** An instant in the reader's own zone, with the zone's offset. */
export function formatInstant(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : `${localDateTime(new Date(t), true)} ${zoneOffset(new Date(t))}`;
}

export function resultTone(result: string): "good" | "warn" | "bad" {
  if (result === "OK") return "good";
  if (result === "PERMISSION_DENIED" || result === "INVALID_ARGUMENT" || result === "NOT_FOUND" || result === "UNAUTHENTICATED") return "warn";
  return "bad";
}
