"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import type { DayRange } from "@/lib/query/billing";
import { cn } from "@/lib/utils";
import { RANGE_PRESETS, resolveRange, type RangeLimit, type RangePreset } from "./date-range";

interface RangePickerProps {
  preset: RangePreset;
  /** The days the current choice stands for (prefills the custom dates). */
  current: DayRange | null;
  error?: string;
  /** The longest custom range the page's chart takes (a daily chart's by default). */
  limit?: RangeLimit;
  onPreset: (preset: Exclude<RangePreset, "custom">) => void;
  onCustom: (from: string, to: string) => void;
}

/** Preset ranges as a button group, and a custom from/to applied together. */
const RANGE_ERROR_ID = "range-error";

export function RangePicker({ preset, current, error, limit, onPreset, onCustom }: RangePickerProps) {
  const [editing, setEditing] = useState(preset === "custom");
  const [from, setFrom] = useState(current?.start_date ?? "");
  const [to, setTo] = useState(current?.end_date ?? "");
  const [draftError, setDraftError] = useState<string | null>(null);
  // The range's message is both bounds' (an order, a length): each names it, and is marked invalid while it shows.
  const message = draftError ?? error;
  const rangeMessage = message ? { "aria-describedby": RANGE_ERROR_ID, "aria-invalid": true } : {};
  const showCustom = editing || preset === "custom";
  return (
    <div className="space-y-3">
      <div role="group" aria-label="Date range" className="flex flex-wrap gap-1">
        {RANGE_PRESETS.map((p) => {
          const active = p.value === "custom" ? showCustom : !showCustom && preset === p.value;
          return (
            <Button
              key={p.value}
              type="button"
              size="sm"
              variant={active ? "primary" : "secondary"}
              aria-pressed={active}
              onClick={() => {
                if (p.value === "custom") {
                  setFrom(current?.start_date ?? "");
                  setTo(current?.end_date ?? "");
                  setEditing(true);
                  return;
                }
                setEditing(false);
                setDraftError(null);
                onPreset(p.value);
              }}
            >
              {p.label}
            </Button>
          );
        })}
      </div>
      {showCustom ? (
        <form
          className="flex flex-wrap items-end gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            const resolved = resolveRange("custom", from, to, undefined, limit);
            if (!resolved.ok) {
              setDraftError(resolved.error);
              return;
            }
            setDraftError(null);
            onCustom(from, to);
          }}
        >
          <Field label="From" htmlFor="range-from">
            <Input id="range-from" type="date" value={from} onChange={(e) => setFrom(e.target.value)} className="w-44" {...rangeMessage} />
          </Field>
          <Field label="To" htmlFor="range-to">
            <Input id="range-to" type="date" value={to} onChange={(e) => setTo(e.target.value)} className="w-44" {...rangeMessage} />
          </Field>
          <Button type="submit" size="md" variant="secondary">
            Apply range
          </Button>
        </form>
      ) : null}
      {message ? (
        <p id={RANGE_ERROR_ID} role="alert" className={cn("text-sm text-red-600 dark:text-red-400")}>
          {message}
        </p>
      ) : null}
    </div>
  );
}
