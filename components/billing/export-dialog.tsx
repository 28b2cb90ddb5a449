"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm, useWatch } from "react-hook-form";
import { toast } from "@/components/ui/toast";
import { z } from "zod";
import { downloadFrom } from "@/components/common/download";
import { DateRangeFields, ExportDialogFrame, ListField, projectOptions, valueOptions } from "@/components/spend/export-dialog-frame";
import { dateSchema, orderedRange } from "@/lib/contract/time";
import { productLinesOf } from "./aggregate";
import { billingExportUrl, type BillingExportFilters, type BillingOptions } from "@/lib/query/billing";

/** The export operation's query as a form: lists empty for "all", both dates required. */
const exportFormSchema = z
  .object({
    projects: z.array(z.string()),
    product_lines: z.array(z.string()),
    regions: z.array(z.string()),
    start_date: dateSchema,
    end_date: dateSchema,
  })
  // Any period, as the export operation takes (it streams); only the charts are held to MAX_RANGE_DAYS.
  .superRefine(orderedRange("start_date", "end_date"));


export interface BillingExportDialogProps {
  orgId: string;
  options: BillingOptions | undefined;
  projectLabel: (id: string) => string;
  defaults: BillingExportFilters;
  /** The resource types the page is filtered to: the export filters by product line, which may cover more, or none. */
  pageResourceTypes?: string[];
}

/** What the export covers beside what the page shows (its resource types), in words; null when it is the same. */
function widening(pageResourceTypes: string[], productLines: string[]): string | null {
  if (pageResourceTypes.length === 0) return null;
  const shown = pageResourceTypes.join(", ");
  if (productLines.length === 0) return `The page shows ${shown} alone; with no product line chosen, the export covers all of them.`;
  const left = pageResourceTypes.filter((t) => productLinesOf([t], productLines).length === 0);
  const exact = left.length === 0 && productLines.every((pl) => pageResourceTypes.includes(pl));
  if (exact) return null;
  const wider = `The page shows ${shown}; the export filters by product line, and ${productLines.join(", ")} covers every resource type of that line.`;
  return left.length > 0 ? `${wider} ${left.join(", ")} is in none of them: the export leaves it out.` : wider;
}

/** CSV of the costs by resource and day, for the chosen projects, product lines, regions and dates. */
/** Loaded on the first click of its button (export-button.tsx), then open. */
export function BillingExportDialog({ orgId, options, projectLabel, defaults, pageResourceTypes = [], defaultOpen = false }: BillingExportDialogProps & { defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen);
  const form = useForm<BillingExportFilters>({ resolver: zodResolver(exportFormSchema), defaultValues: defaults });
  const { errors } = form.formState;
  // Of the product lines as chosen now in the form, not as it opened.
  const note = widening(pageResourceTypes, useWatch({ control: form.control, name: "product_lines" }));
  return (
    <ExportDialogFrame
      open={open}
      onOpenChange={(next) => {
        // Each time it opens, the dialog starts from what the page shows.
        if (next) form.reset(defaults);
        setOpen(next);
      }}
      title="Export costs as CSV"
      description="One row per resource and day, with cost, quantity, unit price and region. Empty lists export everything."
      onSubmit={(e) =>
        void form.handleSubmit((values) => {
          downloadFrom(billingExportUrl(orgId, values));
          toast.success(`Export of ${values.start_date} to ${values.end_date} started`);
          setOpen(false);
        })(e)
      }
    >
      {note ? (
        <p role="note" className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
          {note}
        </p>
      ) : null}
      <ListField control={form.control} name="projects" label="Projects" emptyLabel="All projects" options={projectOptions(options?.projects, projectLabel)} />
      <ListField control={form.control} name="product_lines" label="Product lines" emptyLabel="All product lines" options={valueOptions(options?.product_lines)} />
      <ListField control={form.control} name="regions" label="Regions" emptyLabel="All regions" options={valueOptions(options?.regions)} />
      <DateRangeFields
        idPrefix="export"
        start={form.register("start_date")}
        end={form.register("end_date")}
        startError={errors.start_date?.message && `Start date ${errors.start_date.message}`}
        endError={errors.end_date?.message && `End date ${errors.end_date.message}`}
      />
    </ExportDialogFrame>
  );
}
