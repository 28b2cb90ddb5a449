"use client";

import { X } from "lucide-react";
import { useId } from "react";
import { Select } from "@/components/ui/field";

interface MultiFilterProps {
  /** Singular, e.g. "product". */
  label: string;
  options: string[];
  values: string[];
  onChange: (values: string[]) => void;
}

/** Several values of one filter: chosen ones as removable chips, the rest in a picker. Values are OR-ed. */
export function MultiFilter({ label, options, values, onChange }: MultiFilterProps) {
  const id = useId();
  const rest = options.filter((o) => !values.includes(o));
  return (
    <fieldset className="min-w-0">
      <legend className="mb-1 text-sm font-medium capitalize">{label}</legend>
      <div className="flex flex-wrap items-center gap-2">
        {values.map((v) => (
          <span key={v} className="inline-flex items-center gap-1 rounded-full bg-brand-50 py-0.5 pl-2.5 pr-1 text-xs font-medium text-brand-700 dark:bg-slate-800 dark:text-brand-400">
            {v}
            <button
              type="button"
              onClick={() => onChange(values.filter((x) => x !== v))}
              aria-label={`Remove ${label} filter ${v}`}
              className="rounded-full p-0.5 hover:bg-brand-500/20 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
            >
              <X className="size-3" aria-hidden />
            </button>
          </span>
        ))}
        <label htmlFor={id} className="sr-only">
          Add a {label} filter
        </label>
        <Select
          id={id}
          value=""
          disabled={rest.length === 0}
          onChange={(e) => {
            if (e.target.value) onChange([...values, e.target.value]);
          }}
          className="w-auto min-w-40"
        >
          <option value="">{values.length ? `Add another ${label}…` : `All — add a ${label}…`}</option>
          {rest.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </Select>
      </div>
    </fieldset>
  );
}
