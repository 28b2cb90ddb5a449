"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useForm } from "react-hook-form";
import type { z } from "zod";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import { rfc3339ToLocal } from "@/lib/dates";
import { customRangeSchema } from "./gpu-range-schema";

type FormIn = z.input<typeof customRangeSchema>;
type FormOut = z.output<typeof customRangeSchema>;

/** Start and end of a custom window, in UTC; applied to the URL as RFC 3339 timestamps. */
export function CustomRangeForm({
  start,
  end,
  onApply,
  onCancel,
}: {
  start: string | undefined;
  end: string | undefined;
  onApply: (range: { start: string; end: string }) => void;
  onCancel: () => void;
}) {
  const form = useForm<FormIn, unknown, FormOut>({
    resolver: zodResolver(customRangeSchema),
    defaultValues: { from: rfc3339ToLocal(start), to: rfc3339ToLocal(end) },
  });
  const { errors } = form.formState;
  return (
    <form
      noValidate
      aria-label="Custom time range"
      onSubmit={form.handleSubmit((v) => onApply({ start: v.from, end: v.to }))}
      className="flex flex-col gap-3 sm:flex-row sm:items-start"
    >
      <Field label="From (UTC)" htmlFor="gpu-range-from" error={errors.from?.message} className="sm:w-56">
        <Input id="gpu-range-from" type="datetime-local" step={60} {...form.register("from")} />
      </Field>
      <Field label="To (UTC)" htmlFor="gpu-range-to" error={errors.to?.message} className="sm:w-56">
        <Input id="gpu-range-to" type="datetime-local" step={60} {...form.register("to")} />
      </Field>
      <div className="flex gap-2 sm:pt-6">
        <Button type="submit">Apply range</Button>
        <Button type="button" variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
