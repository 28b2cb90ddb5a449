import { csvText, saveText } from "@/components/common/download";
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

/**
 * Saves the entries as a CSV or JSON file named for the moment of saving. The page imports this
 * module on the first click of an export button, not with its first load.
 */
export async function saveEntries(entries: LogEntry[], ext: "csv" | "json"): Promise<void> {
  const name = `audit-log-${new Date().toISOString().replace(/[:.]/g, "-")}.${ext}`;
  if (ext === "csv") saveText(name, await entriesToCsv(entries), "text/csv");
  else saveText(name, entriesToJson(entries), "application/json");
}
