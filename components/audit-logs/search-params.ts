import { createLoader, parseAsArrayOf, parseAsNumberLiteral, parseAsString, parseAsStringLiteral } from "nuqs/server";
import { AUDIT_LIST_FILTERS, AUDIT_PAGE_SIZES, AUDIT_WINDOW_VALUES, DEFAULT_AUDIT_WINDOW, type AuditListFilter } from "@/lib/query/audit-logs";

// Lists travel comma-separated, as the operation takes them.
const list = () => parseAsArrayOf(parseAsString).withDefault([]);
const lists = Object.fromEntries(AUDIT_LIST_FILTERS.map((name) => [name, list()])) as Record<AuditListFilter, ReturnType<typeof list>>;

/** Every filter of the audit-log search, the window and the page, in the URL under the operation's own names. */
export const auditSearchParams = {
  window: parseAsStringLiteral(AUDIT_WINDOW_VALUES).withDefault(DEFAULT_AUDIT_WINDOW),
  from: parseAsString,
  to: parseAsString,
  ...lists,
  limit: parseAsNumberLiteral(AUDIT_PAGE_SIZES).withDefault(20),
  next: parseAsString,
  prev: parseAsString,
};

export const loadAuditSearchParams = createLoader(auditSearchParams);
