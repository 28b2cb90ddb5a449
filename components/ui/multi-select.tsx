"use client";

import { ChevronDown } from "lucide-react";
import { lazy, useId } from "react";
import { cn } from "@/lib/utils";
import { OnFirstUse, type TriggerHandlers } from "@/components/ui/on-first-use";

export interface MultiSelectOption {
  value: string;
  label?: string;
}

export interface MultiSelectProps {
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

// The checklist (Radix popover and its positioning) is fetched on the first click.
const load = () => import("./multi-select-popover");
const preload = () => void load().catch(() => undefined);
const MultiSelectPopover = lazy(load);

/**
 * A labelled button that opens a checklist: several values at once, an empty
 * choice meaning "all" (or "any"), and optionally values typed by hand.
 */
export function MultiSelect(props: MultiSelectProps) {
  const { label, options, value, emptyLabel = "All", disabled, className } = props;
  const id = useId();
  const labelOf = new Map(options.map((o) => [o.value, o.label ?? o.value]));
  const summary = value.length === 0 ? emptyLabel : value.length === 1 ? (labelOf.get(value[0] ?? "") ?? value[0]) : `${value.length} selected`;
  const trigger = (handlers: TriggerHandlers) => (
    <button
      type="button"
      disabled={disabled}
      aria-labelledby={`${id}-label ${id}-summary`}
      aria-haspopup="dialog"
      className="flex h-9 w-full items-center justify-between gap-2 rounded-md border border-slate-300 bg-white px-3 text-left text-sm shadow-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500/50 disabled:opacity-60 dark:border-slate-700 dark:bg-slate-950"
      {...handlers}
    >
      <span id={`${id}-summary`} className={cn("truncate", value.length === 0 && "text-slate-500 dark:text-slate-400")}>
        {summary}
      </span>
      <ChevronDown className="size-4 shrink-0 opacity-60" aria-hidden />
    </button>
  );
  return (
    <div className={cn("space-y-1", className)}>
      <span id={`${id}-label`} className="block text-sm font-medium">
        {label}
      </span>
      <OnFirstUse trigger={trigger} preload={preload} menu={<MultiSelectPopover {...props} trigger={trigger({})} />} />
    </div>
  );
}
