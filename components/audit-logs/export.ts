import { csvText, saveText } from "@/components/common/download";
import { operationPath } from "@/lib/contract/operations";
import { rfc3339 } from "@/lib/dates";
import { auditQueryParams, type AuditLogsResponse, type AuditSearch, type LogEntry } from "@/lib/query/audit-logs";
import { apiFetch } from "@/lib/query/fetcher";

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

/** The most entries one export holds: the newest of the filters' matches. */
export const AUDIT_EXPORT_MAX = 10_000;
/** Entries per call while exporting: the operation's largest page. */
const EXPORT_PAGE = 1_000;

export interface CollectedEntries {
  entries: LogEntry[];
  /** More entries match than AUDIT_EXPORT_MAX: the file holds the newest. */
  truncated: boolean;
  /** The range the file covers, as sent: a relative window ends at the moment the export began. */
  start: string | undefined;
  end: string;
}

/**
 * Every entry the search's filters match, newest first, walked a page of 1,000 at a time by the next tokens, up to
 * AUDIT_EXPORT_MAX; the page on screen and its size play no part. A relative window is fixed at the moment the export
 * begins (its end sent as end_time), so entries logged meanwhile neither shift the pages nor reach the file.
 */
export async function collectEntries(
  orgId: string,
  search: AuditSearch,
  onProgress: (count: number) => void,
  signal: AbortSignal,
  /** The most entries to keep (AUDIT_EXPORT_MAX; smaller in tests). */
  max = AUDIT_EXPORT_MAX,
): Promise<CollectedEntries> {
  const now = new Date();
  const query = auditQueryParams({ ...search, next: null, prev: null }, now);
  query.limit = String(EXPORT_PAGE);
  query.end_time ??= rfc3339(now);
  const path = operationPath("getAuditLogs", { organization_id: orgId });
  const entries: LogEntry[] = [];
  let next: string | undefined;
  for (;;) {
    signal.throwIfAborted();
    const page = await apiFetch<AuditLogsResponse>(path, { query: next ? { ...query, next_token: next } : query, signal });
    entries.push(...page.items);
    onProgress(Math.min(entries.length, max));
    next = page.next_page_token || undefined;
    if (!next || entries.length >= max) break;
  }
  return {
    entries: entries.slice(0, max),
    truncated: entries.length > max || (entries.length === max && next !== undefined),
    start: typeof query.start_time === "string" ? query.start_time : undefined,
    end: String(query.end_time),
  };
}

/** A file name for the range an export covers: `audit-log-<start>--<end>.<ext>` (colons and dots, which some file systems refuse, as dashes). */
export function exportFileName(collected: Pick<CollectedEntries, "start" | "end">, ext: "csv" | "json"): string {
  const safe = (instant: string) => instant.replace(/[:.]/g, "-");
  return `audit-log-${collected.start ? safe(collected.start) : "start"}--${safe(collected.end)}.${ext}`;
}

/**
 * Saves the entries as a CSV or JSON file named for the range they cover. The page imports this module on the first
 * click of an export button, not with its first load.
 */
export async function saveEntries(collected: CollectedEntries, ext: "csv" | "json"): Promise<void> {
  const name = exportFileName(collected, ext);
  if (ext === "csv") saveText(name, await entriesToCsv(collected.entries), "text/csv");
  else saveText(name, entriesToJson(collected.entries), "application/json");
}
