"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCombobox } from "downshift";
import { useState } from "react";
import { useDebounce } from "use-debounce";
import { FieldNotes } from "@/components/ui/field";
import { cn } from "@/lib/utils";
import { errorMessage } from "@/lib/query/fetcher";
import { isPartial, peopleQueries, type Person } from "@/lib/query/people";
import { usePeopleDirectory, usePerson } from "./person-name";

const inputClass =
  "block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm outline-none placeholder:text-slate-400 " +
  "focus-visible:border-brand-500 focus-visible:ring-2 focus-visible:ring-brand-500/40 disabled:opacity-60 dark:border-slate-700 dark:bg-slate-950";

const personLabel = (p: Person) => (p.name ? `${p.name} <${p.email}>` : p.email);

const matches = (p: Person, text: string) => {
  const t = text.trim().toLowerCase();
  return t === "" || p.email.toLowerCase().includes(t) || p.name.toLowerCase().includes(t);
};

export interface PersonComboboxProps {
  orgId: string;
  id: string;
  label: string;
  hint?: string;
  error?: string | null;
  selfId?: string;
  disabled?: boolean;
  value: string | null;
  onChange: (person: Person | null) => void;
}

const SHOWN = 50;

/** The picker's state in a few words for its live region: "" before anything is typed. */
function announcement(filter: string, waiting: boolean, failed: boolean, count: number): string {
  if (filter.trim() === "") return "";
  if (failed) return "Search failed.";
  if (waiting) return "Searching.";
  if (count === 0) return "No results.";
  return count >= SHOWN ? `The first ${SHOWN} results.` : `${count} ${count === 1 ? "result" : "results"}.`;
}

/**
 * Picks a person of the organization by name or e-mail: an ARIA 1.2 combobox (downshift's
 * useCombobox). It filters the organization's directory as one types; when the organization has
 * more people than the directory's one page, the gateway is asked instead (`q`, a moment after the
 * last key). Pages use PersonCombobox (person-combobox.tsx), which loads this module after the page.
 */
export function PersonComboboxField({ orgId, id, label, hint, error, selfId, disabled, value, onChange }: PersonComboboxProps) {
  const { directory } = usePeopleDirectory(orgId);
  const people = directory.data?.items ?? [];
  // From the directory, or looked up by id (a person picked from a search is put in that lookup's cache).
  const selected = usePerson(orgId, value) ?? null;
  // What was typed since the last choice; null: the chosen person's label, whenever it is known (an id in
  // the URL is looked up after the directory came), which filters nothing, so reopening lists everyone again.
  const [draft, setDraft] = useState<string | null>(null);
  const text = draft ?? (selected ? personLabel(selected) : "");
  const filter = draft ?? "";
  const partial = isPartial(directory.data);
  const wanted = filter.trim();
  const [asked] = useDebounce(wanted, 250);
  const search = useQuery({ ...peopleQueries.list(orgId, { q: asked, limit: String(SHOWN) }), enabled: partial && asked !== "", staleTime: 30_000 });
  const onServer = partial && wanted !== "";
  // Only the answer for what the box says now is listed: never the previous query's, whose rows a
  // highlight could land on and Enter pick while the next answer is on its way.
  const answered = onServer && asked === wanted && search.isSuccess;
  const items = onServer ? (answered ? search.data.items : []) : people.filter((p) => matches(p, filter)).slice(0, SHOWN);
  const waiting = onServer && !answered;
  const failed = waiting && asked === wanted && search.isError;
  let statusText = "";
  if (failed) statusText = `The search failed: ${errorMessage(search.error)}`;
  else if (waiting) statusText = "Searching…";
  else if (filter && items.length === 0) statusText = `No one in this organization matches “${filter}”.`;
  // What a screen reader hears as one types (downshift announces no change of the list), a moment
  // after the last change; in other words than the list's own rows, which the specs find by text.
  const [announced] = useDebounce(announcement(filter, waiting, failed, items.length), 400);
  const queryClient = useQueryClient();
  const cb = useCombobox<Person>({
    id,
    inputId: id,
    items,
    selectedItem: selected,
    inputValue: text,
    itemToString: (p) => (p ? personLabel(p) : ""),
    onInputValueChange: ({ inputValue, type }) => setDraft(type === useCombobox.stateChangeTypes.InputChange ? (inputValue ?? "") : null),
    // A highlight past the end of a list that changed under it selects nothing, rather than clearing the choice.
    stateReducer: (state, { changes }) => ("selectedItem" in changes && changes.selectedItem === undefined ? { ...changes, selectedItem: state.selectedItem } : changes),
    onSelectedItemChange: ({ selectedItem }) => {
      setDraft(null);
      // Known now: not looked up again by id, here or where the choice is shown next.
      if (selectedItem) queryClient.setQueryData(peopleQueries.person(orgId, selectedItem.id).queryKey, selectedItem);
      onChange(selectedItem ?? null);
    },
  });
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return (
    <div className="relative space-y-1">
      <label {...cb.getLabelProps()} className="block text-sm font-medium">
        {label}
      </label>
      <input
        {...cb.getInputProps({
          disabled,
          placeholder: directory.isPending ? "Loading people…" : "Search by name or e-mail",
          "aria-describedby": [hintId, errorId].filter(Boolean).join(" ") || undefined,
          "aria-invalid": error ? true : undefined,
        })}
        className={inputClass}
        autoComplete="off"
      />
      <FieldNotes id={id} hint={hint} error={error} />
      <p role="status" className="sr-only">
        {cb.isOpen ? announced : ""}
      </p>
      <ul
        {...cb.getMenuProps()}
        className={cn(
          "absolute z-20 mt-1 max-h-72 w-full overflow-auto rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900",
          !(cb.isOpen && (items.length > 0 || filter)) && "hidden",
        )}
      >
        {cb.isOpen
          ? items.map((p, index) => (
              <li
                key={p.id}
                {...cb.getItemProps({ item: p, index })}
                className={cn("cursor-pointer px-3 py-1.5", cb.highlightedIndex === index && "bg-slate-100 dark:bg-slate-800")}
              >
                <span className="font-medium">{p.name || p.email}</span>
                {p.id === selfId ? <span className="ml-1 text-xs text-brand-700 dark:text-brand-500">(you)</span> : null}
                {p.name ? <span className="block text-xs text-slate-600 dark:text-slate-400">{p.email}</span> : null}
              </li>
            ))
          : null}
        {cb.isOpen && items.length === 0 && statusText ? <li className="px-3 py-1.5 text-slate-600 dark:text-slate-400">{statusText}</li> : null}
      </ul>
    </div>
  );
}
