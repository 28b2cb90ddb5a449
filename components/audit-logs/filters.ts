import type { FieldErrors } from "@/components/common/native-form";
import { rfc3339 } from "@/lib/dates";
import type { AUDIT_WINDOW_VALUES, AuditListFilter } from "@/lib/query/audit-logs";

/** The lists typed as text, comma-separated. */
export type TextList = "actor_emails" | "actor_ids" | "target_ids" | "target_names";
export type ChoiceList = Exclude<AuditListFilter, TextList>;

export const splitList = (v: string) =>
  v
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

export type Choices = Record<ChoiceList, string[]>;
export type FilterValues = Choices & Record<TextList, string> & { window: (typeof AUDIT_WINDOW_VALUES)[number]; from: string; to: string };

export const CHOICE_FIELDS: ChoiceList[] = ["project_ids", "actions", "actor_types", "target_types", "locations", "results", "results_not", "surfaces"];
const TEXT_FIELDS: Array<[TextList, string]> = [
  ["actor_emails", "Actor e-mails"],
  ["actor_ids", "Actor IDs"],
  ["target_ids", "Target IDs"],
  ["target_names", "Target names"],
];
/** The e-mail pattern zod's z.email() applies. */
const EMAIL = /^(?!\.)(?!.*\.\.)([A-Za-z0-9_'+\-.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

/**
 * The filters' rules, the first problem of each field as its message. Written out rather than as a
 * zod schema: this form is on the page's first load, and zod would add about 30 KB gzipped to it.
 */
export function filterProblems(values: FilterValues): FieldErrors {
  const errors: FieldErrors = {};
  const fail = (name: keyof FilterValues, message: string) => {
    errors[name] ??= message;
  };
  for (const name of CHOICE_FIELDS) if (values[name].length > 100) fail(name, "at most 100 values");
  for (const [name, what] of TEXT_FIELDS) {
    const list = splitList(values[name]);
    if (list.length > 100) fail(name, `${what}: at most 100 values`);
    if (list.some((x) => x.length > 512)) fail(name, `${what}: each value at most 512 characters`);
  }
  if (!splitList(values.actor_emails).every((e) => EMAIL.test(e))) fail("actor_emails", "Actor e-mails: each must be an e-mail address, e.g. someone@example.com");
  if (values.window === "custom") {
    if (!values.from && !values.to) fail("from", "Choose a start, an end, or both");
    if (values.from && Number.isNaN(Date.parse(values.from))) fail("from", "Start is not a valid date and time");
    if (values.to && Number.isNaN(Date.parse(values.to))) fail("to", "End is not a valid date and time");
    if (values.from && values.to && Date.parse(values.from) > Date.parse(values.to)) fail("from", "Start must not be after the end");
  }
  return errors;
}

/**
 * RFC 3339 with the user's offset, of a datetime-local value (the user's zone). As the window's `end`, a value
 * of minutes is the last moment of its minute: the end is included, so "10:05" finds what happened at 10:05:30
 * (the store keeps microseconds, and compares them).
 */
export function localInputToRfc3339(local: string, end = false): string | null {
  if (!local) return null;
  const at = rfc3339(new Date(local));
  return end && local.length === 16 ? `${at.slice(0, 17)}59.999999${at.slice(19)}` : at;
}
