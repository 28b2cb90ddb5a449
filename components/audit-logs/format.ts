import { format } from "date-fns";

/** An instant in the reader's own zone, with the zone's offset. */
export function formatInstant(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : format(new Date(t), "yyyy-MM-dd HH:mm:ss xxx");
}

export function resultTone(result: string): "good" | "warn" | "bad" {
  if (result === "OK") return "good";
  if (result === "PERMISSION_DENIED" || result === "INVALID_ARGUMENT" || result === "NOT_FOUND" || result === "UNAUTHENTICATED") return "warn";
  return "bad";
}
