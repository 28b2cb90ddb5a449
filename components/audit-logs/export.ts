import { csvText } from "@/components/common/download";
import type { LogEntry } from "@/lib/query/audit-logs";

/** Every field of an entry, in the order of the reference's LogEntry. */
export const LOG_ENTRY_FIELDS = [
  "start_time",
  "end_time",
  "action",
  "action_detail",
  "result",
  "error_message",
  "actor_id",
  "actor_email",
  "actor_type",
  "client_ip",
  "surface",
  "organization_id",
  "organization_name",
  "project_id",
  "project_name",
  "target_type",
  "target_ids",
  "target_names",
  "locations",
] as const satisfies ReadonlyArray<keyof LogEntry>;

/** CSV of the entries: one column per field, lists joined with "; ". */
export function entriesToCsv(entries: LogEntry[]): Promise<string> {
  const rows = entries.map((e) => LOG_ENTRY_FIELDS.map((f) => (Array.isArray(e[f]) ? (e[f] as string[]).join("; ") : String(e[f] ?? ""))));
  return csvText(LOG_ENTRY_FIELDS, rows);
}

export function entriesToJson(entries: LogEntry[]): string {
  return `${JSON.stringify(entries, null, 2)}\n`;
}
