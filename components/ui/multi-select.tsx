"use client";

import { Check, ChevronDown, X } from "lucide-react";
import { Popover } from "radix-ui";
import { useId, useState } from "react";
import { cn } from "@/lib/utils";
import { Button } from "./button";
import { Input } from "./field";

export interface MultiSelectOption {
  value: string;
  label?: string;
}

interface MultiSelectProps {
  label: string;
  options: MultiSelectOption[];
  value: string[];
  onChange: (value: string[]) => void;
  /** What an empty selection means, e.g. "All projects". */
  emptyLabel?: string;
  /** Lets the user add a value that is not among the options. */
  allowCustom?: boolean;
  disabled?: boolean;
  className?: string;
}

/**
 * A labelled button that opens a checklist: several values at once, an empty
 * choice meaning "all" (or "any"), and optionally values typed by hand.
 */
export function MultiSelect({ label, options, value, onChange, emptyLabel = "All", allowCustom, disabled, className }: MultiSelectProps) {
  const id = useId();
  const [custom, setCustom] = useState("");
  const labelOf = new Map(options.map((o) => [o.value, o.label ?? o.value]));
  // Chosen values that are not (or no longer) among the options stay visible, so they can be removed.
  const all = [...options, ...value.filter((v) => !labelOf.has(v)).map((v) => ({ value: v, label: v }))];
  const summary = value.length === 0 ? emptyLabel : value.length === 1 ? (labelOf.get(value[0] ?? "") ?? value[0]) : `${value.length} selected`;
  const toggle = (v: string) => onChange(value.includes(v) ? value.filter((x) => x !== v) : [...value, v]);
  const add = () => {
    const v = custom.trim();
    if (v && !value.includes(v)) onChange([...value, v]);
    setCustom("");
  };
  return (
    <div className={cn("space-y-1", className)}>
      <span id={`${id}-label`} className="block text-sm font-medium">
        {label}
      </span>
      <Popover.Root>
        <Popover.Trigger asChild disabled={disabled}>
          <button
            type="button"
            aria-labelledby={`${id}-label ${id}-summary`}
            className="flex h-9 w-full items-center justify-between gap-2 rounded-md border border-slate-300 bg-white px-3 text-left text-sm shadow-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500/50 disabled:opacity-60 dark:border-slate-700 dark:bg-slate-950"
          >
            <span id={`${id}-summary`} className={cn("truncate", value.length === 0 && "text-slate-500 dark:text-slate-400")}>
              {summary}
            </span>
            <ChevronDown className="size-4 shrink-0 opacity-60" aria-hidden />
          </button>
        </Popover.Trigger>
        <Popover.Portal>
          <Popover.Content
            align="start"
            sideOffset={4}
            className="z-50 w-72 max-w-[calc(100vw-2rem)] rounded-md border border-slate-200 bg-white p-2 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900"
          >
            <div role="group" aria-label={label} className="max-h-64 space-y-0.5 overflow-y-auto">
              {all.length === 0 ? <p className="px-2 py-1.5 text-slate-500">No values to choose from.</p> : null}
              {all.map((o) => {
                const checked = value.includes(o.value);
                return (
                  <label key={o.value} className="flex cursor-pointer items-center gap-2 rounded px-2 py-1.5 hover:bg-slate-100 dark:hover:bg-slate-800">
                    <input type="checkbox" className="peer sr-only" checked={checked} onChange={() => toggle(o.value)} />
                    <span
                      aria-hidden
                      className={cn(
                        "flex size-4 shrink-0 items-center justify-center rounded border border-slate-400 peer-focus-visible:ring-2 peer-focus-visible:ring-brand-500 dark:border-slate-500",
                        checked && "border-brand-600 bg-brand-600 text-white",
                      )}
                    >
                      {checked ? <Check className="size-3" /> : null}
                    </span>
                    <span className="min-w-0 truncate">{o.label ?? o.value}</span>
                  </label>
                );
              })}
            </div>
            {allowCustom ? (
              // Not a <form>: the list may sit inside one, and a portal still bubbles submit events to it.
              <div className="mt-2 flex gap-2 border-t border-slate-100 pt-2 dark:border-slate-800">
                <Input
                  aria-label={`Add a value to ${label}`}
                  placeholder="Other value"
                  value={custom}
                  onChange={(e) => setCustom(e.target.value)}
                  onKeyDown={(e) => {
                    if (e.key !== "Enter") return;
                    e.preventDefault();
                    add();
                  }}
                  className="h-8 py-1"
                />
                <Button type="button" size="sm" variant="secondary" disabled={!custom.trim()} onClick={add}>
                  Add
                </Button>
              </div>
            ) : null}
            {value.length > 0 ? (
              <div className="mt-2 border-t border-slate-100 pt-2 dark:border-slate-800">
                <Button type="button" size="sm" variant="ghost" onClick={() => onChange([])}>
                  <X /> Clear {label.toLowerCase()}
                </Button>
              </div>
            ) : null}
          </Popover.Content>
        </Popover.Portal>
      </Popover.Root>
    </div>
  );
}
