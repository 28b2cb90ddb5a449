"use client";

import type * as React from "react";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import { sentence } from "./form-errors";

/** A date picked in the form means the end of that day, UTC. */
export function endOfDayUtc(date: string): string {
  return `${date}T23:59:59Z`;
}

/** The same day and time a year later (29 February becomes 28 February), as date-fns' addYears. */
function addYearUtc(date: Date): Date {
  const next = new Date(date);
  next.setFullYear(date.getFullYear() + 1);
  if (next.getMonth() !== date.getMonth()) next.setDate(0);
  return next;
}

/** Today plus `days`, as YYYY-MM-DD in UTC. */
export function dateFromToday(days: number): string {
  const date = new Date();
  date.setDate(date.getDate() + days);
  return date.toISOString().slice(0, 10);
}

const PRESETS: Array<{ label: string; date: () => string }> = [
  { label: "30 days", date: () => dateFromToday(30) },
  { label: "90 days", date: () => dateFromToday(90) },
  { label: "1 year", date: () => addYearUtc(new Date()).toISOString().slice(0, 10) },
];

interface ExpiryFieldProps {
  id: string;
  label: string;
  error?: string;
  /** Offers "Never" and explains that empty means no expiry. */
  optional?: boolean;
  input: React.InputHTMLAttributes<HTMLInputElement> & React.RefAttributes<HTMLInputElement>;
  onPick: (date: string) => void;
}

/** A date input with quick picks; the key or token stops working at the end of that day (UTC). */
export function ExpiryField({ id, label, error, optional, input, onPick }: ExpiryFieldProps) {
  return (
    <div className="space-y-2">
      <Field
        label={label}
        htmlFor={id}
        error={sentence(error)}
        hint={optional ? "Stops working at the end of this day (UTC). Leave empty for no expiry." : "Stops working at the end of this day (UTC)."}
      >
        <Input id={id} type="date" min={dateFromToday(0)} {...input} />
      </Field>
      <div role="group" aria-label="Quick expiry picks" className="flex flex-wrap gap-2">
        {PRESETS.map((p) => (
          <Button key={p.label} type="button" variant="secondary" size="sm" onClick={() => onPick(p.date())}>
            {p.label}
          </Button>
        ))}
        {optional ? (
          <Button type="button" variant="secondary" size="sm" onClick={() => onPick("")}>
            Never
          </Button>
        ) : null}
      </div>
    </div>
  );
}
