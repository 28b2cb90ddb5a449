"use client";

import { localDateTime, zoneOffset } from "@/lib/dates";
import { RotateCcw, Search } from "lucide-react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field, Input, Select } from "@/components/ui/field";
import { MultiSelect, type MultiSelectOption } from "@/components/ui/multi-select";
import { clearErrorOnChange, formValues, showErrors, type FieldErrors } from "@/components/common/native-form";
import { useHydrated } from "@/components/common/dates";
import { AUDIT_WINDOWS, type AuditListFilter, type AuditSearch } from "@/lib/query/audit-logs";
import { CHOICE_FIELDS, filterProblems, localInputToRfc3339, splitList, type ChoiceList, type Choices, type FilterValues, type TextList } from "./filters";

/** Values seen in this gateway's log; others can be typed, as the operation's value sets are open. */
const KNOWN = {
  actions: ["Create", "Update", "Delete"],
  actor_types: ["user", "system", "admin"],
  target_types: ["VM", "Disk", "Project", "RoleBinding", "S3Key", "SSHKey", "Organization", "Snapshot"],
  results: ["OK", "INVALID_ARGUMENT", "UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND", "INTERNAL"],
  surfaces: ["console", "api", "cli", "terraform"],
};

/** datetime-local value (the user's zone) of an RFC 3339 instant. */
function toLocalInput(rfc3339: string | null): string {
  if (!rfc3339) return "";
  const t = Date.parse(rfc3339);
  return Number.isNaN(t) ? "" : localDateTime(new Date(t)).replace(" ", "T");
}

function zoneName(): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return `${zone} (UTC${zoneOffset(new Date())})`;
}

export type AuditFilterChange = Partial<AuditSearch>;

interface FiltersFormProps {
  search: AuditSearch;
  projects: MultiSelectOption[];
  locations: string[];
  onApply: (change: AuditFilterChange) => void;
}

/** Every filter of the search, applied together (the URL changes once, and a new first page loads). */
export function AuditFiltersForm({ search, projects, locations, onApply }: FiltersFormProps) {
  // The text fields are the form's own (read on submit); the time window and the choices are state,
  // as the window decides which fields show and a choice list is a button, not an input.
  const [windowValue, setWindowValue] = useState<FilterValues["window"]>(search.window);
  const [choices, setChoices] = useState<Choices>(() => Object.fromEntries(CHOICE_FIELDS.map((name) => [name, search[name]])) as Choices);
  const [errors, setErrors] = useState<FieldErrors>({});
  // The zone named is the browser's, known once the page is hydrated (the server writes a neutral word until then).
  const hydrated = useHydrated();
  const fromRef = useRef<HTMLInputElement>(null);
  const toRef = useRef<HTMLInputElement>(null);
  // The server renders the range in its own zone; in the browser it is the user's.
  useEffect(() => {
    if (fromRef.current) fromRef.current.value = toLocalInput(search.from);
    if (toRef.current) toRef.current.value = toLocalInput(search.to);
  }, [search.from, search.to]);

  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const text = formValues(form);
    const v: FilterValues = {
      ...choices,
      window: windowValue,
      from: text.from ?? "",
      to: text.to ?? "",
      actor_emails: text.actor_emails ?? "",
      actor_ids: text.actor_ids ?? "",
      target_ids: text.target_ids ?? "",
      target_names: text.target_names ?? "",
    };
    if (showErrors(form, filterProblems(v), setErrors)) return;
    const lists: Record<AuditListFilter, string[]> = {
      ...choices,
      actor_emails: splitList(v.actor_emails),
      actor_ids: splitList(v.actor_ids),
      target_ids: splitList(v.target_ids),
      target_names: splitList(v.target_names),
    };
    const custom = v.window === "custom";
    onApply({ ...lists, window: v.window, from: custom ? localInputToRfc3339(v.from) : null, to: custom ? localInputToRfc3339(v.to, true) : null, next: null, prev: null });
  };

  const choiceField = (name: ChoiceList, label: string, options: MultiSelectOption[], emptyLabel = "Any") => (
    <div>
      <MultiSelect
        label={label}
        emptyLabel={emptyLabel}
        options={options}
        value={choices[name]}
        onChange={(value) => {
          setChoices((c) => ({ ...c, [name]: value }));
          setErrors((e) => ({ ...e, [name]: undefined }));
        }}
        allowCustom
      />
      {errors[name] ? <p role="alert" className="mt-1 text-xs text-red-600 dark:text-red-400">{`${label}: ${errors[name]}`}</p> : null}
    </div>
  );
  const textField = (name: TextList, label: string, placeholder: string) => (
    <Field label={label} htmlFor={`audit-${name}`} error={errors[name]}>
      <Input id={`audit-${name}`} name={name} defaultValue={search[name].join(", ")} placeholder={placeholder} autoComplete="off" spellCheck={false} />
    </Field>
  );
  const options = (values: string[]) => values.map((value) => ({ value }));

  return (
    <form noValidate aria-label="Audit log filters" onChange={clearErrorOnChange(errors, setErrors)} onSubmit={onSubmit} className="space-y-4">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <Field label="Time window" htmlFor="audit-window">
          <Select id="audit-window" name="window" value={windowValue} onChange={(e) => setWindowValue(e.target.value as FilterValues["window"])}>
            {AUDIT_WINDOWS.map((w) => (
              <option key={w.value} value={w.value}>
                {w.label}
              </option>
            ))}
          </Select>
        </Field>
        {windowValue === "custom" ? (
          <>
            <Field label="From" htmlFor="audit-from" error={errors.from} hint={hydrated ? `In ${zoneName()}` : "In your time zone"}>
              <Input ref={fromRef} id="audit-from" name="from" type="datetime-local" suppressHydrationWarning defaultValue={toLocalInput(search.from)} />
            </Field>
            <Field label="To" htmlFor="audit-to" error={errors.to}>
              <Input ref={toRef} id="audit-to" name="to" type="datetime-local" suppressHydrationWarning defaultValue={toLocalInput(search.to)} />
            </Field>
          </>
        ) : null}
      </div>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
        {choiceField("project_ids", "Projects", projects, "All projects")}
        {choiceField("actions", "Actions", options(KNOWN.actions))}
        {choiceField("actor_types", "Actor types", options(KNOWN.actor_types))}
        {choiceField("target_types", "Target types", options(KNOWN.target_types))}
        {choiceField("locations", "Locations", options(locations))}
        {choiceField("results", "Results", options(KNOWN.results))}
        {choiceField("results_not", "Results not", options(KNOWN.results), "None excluded")}
        {choiceField("surfaces", "Surfaces", options(KNOWN.surfaces))}
        {textField("actor_emails", "Actor e-mails", "alice@example.com, bob@example.com")}
        {textField("actor_ids", "Actor IDs", "Comma-separated IDs")}
        {textField("target_ids", "Target IDs", "Comma-separated IDs")}
        {textField("target_names", "Target names", "Comma-separated names")}
      </div>
      <div className="flex flex-wrap gap-2">
        <Button type="submit">
          <Search /> Apply filters
        </Button>
        <Button
          type="button"
          variant="secondary"
          onClick={() =>
            onApply({
              window: "1d",
              from: null,
              to: null,
              project_ids: [],
              actions: [],
              actor_ids: [],
              actor_emails: [],
              actor_types: [],
              target_ids: [],
              target_types: [],
              target_names: [],
              locations: [],
              results: [],
              results_not: [],
              surfaces: [],
              next: null,
              prev: null,
            })
          }
        >
          <RotateCcw /> Reset
        </Button>
      </div>
    </form>
  );
}
