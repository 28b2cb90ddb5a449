"use client";

import { useCombobox } from "downshift";
import { useState } from "react";
import { FieldNotes } from "@/components/ui/field";
import { cn } from "@/lib/utils";
import type { Person } from "@/lib/query/people";
import { usePeopleDirectory } from "./person-name";

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

/**
 * Picks a person of the organization by name or e-mail: an ARIA 1.2 combobox (downshift's
 * useCombobox), filtering the organization's directory as one types. Pages use PersonCombobox
 * (person-combobox.tsx), which loads this module after the page.
 */
export function PersonComboboxField({ orgId, id, label, hint, error, selfId, disabled, value, onChange }: PersonComboboxProps) {
  const { directory, byId } = usePeopleDirectory(orgId);
  const people = directory.data?.items ?? [];
  const selected = value ? (byId.get(value) ?? null) : null;
  const [text, setText] = useState(() => (selected ? personLabel(selected) : ""));
  // The chosen person's label in the box filters nothing: reopening lists everyone again.
  const filter = selected && text === personLabel(selected) ? "" : text;
  const items = people.filter((p) => matches(p, filter)).slice(0, 50);
  const cb = useCombobox<Person>({
    id,
    inputId: id,
    items,
    selectedItem: selected,
    inputValue: text,
    itemToString: (p) => (p ? personLabel(p) : ""),
    onInputValueChange: ({ inputValue }) => setText(inputValue ?? ""),
    onSelectedItemChange: ({ selectedItem }) => onChange(selectedItem ?? null),
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
        {cb.isOpen && items.length === 0 && filter ? <li className="px-3 py-1.5 text-slate-600 dark:text-slate-400">No one in this organization matches “{filter}”.</li> : null}
      </ul>
    </div>
  );
}
