import { createLoader, parseAsArrayOf, parseAsNumberLiteral, parseAsString, parseAsStringLiteral } from "nuqs/server";
import { AUDIT_PAGE_SIZES, AUDIT_WINDOW_VALUES, DEFAULT_AUDIT_WINDOW } from "@/lib/query/audit-logs";

// Lists travel comma-separated, as the operation takes them.
const list = () => parseAsArrayOf(parseAsString).withDefault([]);

/** Every filter of the audit-log search, the window and the page, in the URL under the operation's own names. */
export const auditSearchParams = {
  window: parseAsStringLiteral(AUDIT_WINDOW_VALUES).withDefault(DEFAULT_AUDIT_WINDOW),
  from: parseAsString,
  to: parseAsString,
  project_ids: list(),
  actions: list(),
  actor_ids: list(),
  actor_emails: list(),
  actor_types: list(),
  target_ids: list(),
  target_types: list(),
  target_names: list(),
  locations: list(),
  results: list(),
  results_not: list(),
  surfaces: list(),
  limit: parseAsNumberLiteral(AUDIT_PAGE_SIZES).withDefault(20),
  next: parseAsString,
  prev: parseAsString,
};

export const loadAuditSearchParams = createLoader(auditSearchParams);
