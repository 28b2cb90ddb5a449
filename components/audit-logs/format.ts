import { localDateTime, zoneOffset } from "@/lib/dates";

/** An instant in the reader's own zone, with the zone's offset. */
export function formatInstant(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : `${localDateTime(new Date(t), true)} ${zoneOffset(new Date(t))}`;
}

/** The same, in UTC whatever the zone (what the server writes): a reader in UTC sees no change once the page runs. */
export function formatInstantUtc(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const s = new Date(t).toISOString();
  return `${s.slice(0, 10)} ${s.slice(11, 19)} +00:00`;
}

export function resultTone(result: string): "good" | "warn" | "bad" {
  if (result === "OK") return "good";
  if (result === "PERMISSION_DENIED" || result === "INVALID_ARGUMENT" || result === "NOT_FOUND" || result === "UNAUTHENTICATED") return "warn";
  return "bad";
}
