"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { Download } from "lucide-react";
import { useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { toast } from "@/components/ui/toast";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { downloadFrom } from "@/components/common/download";
import { DialogFooter } from "@/components/ui/dialog";
// Loaded on first use already (export-button.tsx): Radix directly, so its trigger never blinks out.
import { DialogContent, DialogRoot as Dialog, DialogTrigger } from "@/components/ui/dialog-parts";
import { Field, Input } from "@/components/ui/field";
import { MultiSelect } from "@/components/ui/multi-select";
import { dateSchema, orderedRange } from "@/lib/contract/time";
import { billingExportUrl, type BillingExportFilters, type BillingOptions } from "@/lib/query/billing";
import { daysBetween, MAX_RANGE_DAYS } from "@/components/spend/date-range";
import { compareNames } from "@/lib/format";

/** The export operation's query as a form: lists empty for "all", both dates required. */
const exportFormSchema = z
  .object({
    projects: z.array(z.string()),
    product_lines: z.array(z.string()),
    regions: z.array(z.string()),
    start_date: dateSchema,
    end_date: dateSchema,
  })
  .superRefine(orderedRange("start_date", "end_date"))
  .refine((v) => v.start_date > v.end_date || daysBetween(v.start_date, v.end_date) <= MAX_RANGE_DAYS, {
    path: ["end_date"],
    message: `must be at most ${MAX_RANGE_DAYS} days after the start date`,
  });


export interface BillingExportDialogProps {
  orgId: string;
  options: BillingOptions | undefined;
  projectLabel: (id: string) => string;
  defaults: BillingExportFilters;
}

/** CSV of the costs by resource and day, for the chosen projects, product lines, regions and dates. */
/** Loaded on the first click of its button (export-button.tsx), then open. */
export function BillingExportDialog({ orgId, options, projectLabel, defaults, defaultOpen = false }: BillingExportDialogProps & { defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen);
  const form = useForm<BillingExportFilters>({ resolver: zodResolver(exportFormSchema), defaultValues: defaults });
  const { errors } = form.formState;
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        // Each time it opens, the dialog starts from what the page shows.
        if (next) form.reset(defaults);
        setOpen(next);
      }}
    >
      <DialogTrigger asChild>
        <Button variant="secondary" className="w-full sm:w-auto">
          <Download /> Export CSV
        </Button>
      </DialogTrigger>
      <DialogContent title="Export costs as CSV" description="One row per resource and day, with cost, quantity, unit price and region. Empty lists export everything.">
        <form
          noValidate
          onSubmit={form.handleSubmit((values) => {
            downloadFrom(billingExportUrl(orgId, values));
            toast.success(`Export of ${values.start_date} to ${values.end_date} started`);
            setOpen(false);
          })}
          className="space-y-4"
        >
          <Controller
            control={form.control}
            name="projects"
            render={({ field }) => (
              <MultiSelect
                label="Projects"
                emptyLabel="All projects"
                options={(options?.projects ?? []).map((id) => ({ value: id, label: projectLabel(id) })).sort((a, b) => compareNames(a.label, b.label))}
                value={field.value}
                onChange={field.onChange}
              />
            )}
          />
          <Controller
            control={form.control}
            name="product_lines"
            render={({ field }) => (
              <MultiSelect
                label="Product lines"
                emptyLabel="All product lines"
                options={(options?.product_lines ?? []).map((v) => ({ value: v }))}
                value={field.value}
                onChange={field.onChange}
              />
            )}
          />
          <Controller
            control={form.control}
            name="regions"
            render={({ field }) => (
              <MultiSelect
                label="Regions"
                emptyLabel="All regions"
                options={(options?.regions ?? []).map((v) => ({ value: v }))}
                value={field.value}
                onChange={field.onChange}
              />
            )}
          />
          <div className="grid gap-3 sm:grid-cols-2">
            <Field label="Start date" htmlFor="export-start" error={errors.start_date?.message && `Start date ${errors.start_date.message}`}>
              <Input id="export-start" type="date" {...form.register("start_date")} />
            </Field>
            <Field label="End date" htmlFor="export-end" error={errors.end_date?.message && `End date ${errors.end_date.message}`}>
              <Input id="export-end" type="date" {...form.register("end_date")} />
            </Field>
          </div>
          <DialogFooter>
            <Button type="button" variant="secondary" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button type="submit">
              <Download /> Download CSV
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
