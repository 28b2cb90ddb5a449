"use client";

import { Check, X } from "lucide-react";
import { Popover } from "radix-ui";
import { useState, type ReactElement } from "react";
import { cn } from "@/lib/utils";
import { Button } from "./button";
import { Input } from "./field";
import type { MultiSelectProps } from "./multi-select";

/** The checklist of a MultiSelect (multi-select.tsx): loaded on the first click of its button, then open. */
export default function MultiSelectPopover({ label, options, value, onChange, allowCustom, trigger }: MultiSelectProps & { trigger: ReactElement }) {
  const [custom, setCustom] = useState("");
  const labelOf = new Map(options.map((o) => [o.value, o.label ?? o.value]));
  // Chosen values that are not (or no longer) among the options stay visible, so they can be removed.
  const all = [...options, ...value.filter((v) => !labelOf.has(v)).map((v) => ({ value: v, label: v }))];
  const toggle = (v: string) => onChange(value.includes(v) ? value.filter((x) => x !== v) : [...value, v]);
  const add = () => {
    const v = custom.trim();
    if (v && !value.includes(v)) onChange([...value, v]);
    setCustom("");
  };
  return (
    <Popover.Root defaultOpen>
      <Popover.Trigger asChild>{trigger}</Popover.Trigger>
      <Popover.Portal>
        <Popover.Content
          align="start"
          sideOffset={4}
          className="z-50 w-72 max-w-[calc(100vw-2rem)] rounded-md border border-slate-200 bg-white p-2 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          <div role="group" aria-label={label} className="max-h-64 space-y-0.5 overflow-y-auto">
            {all.length === 0 ? <p className="px-2 py-1.5 text-slate-500 dark:text-slate-400">No values to choose from.</p> : null}
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
  );
}
