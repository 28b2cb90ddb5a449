"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useEffect, useRef, useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "@/components/ui/toast";
import { z } from "zod";
import { downloadFrom } from "@/components/common/download";
import { DateRangeFields, ExportDialogFrame, ListField, projectOptions, valueOptions } from "@/components/spend/export-dialog-frame";
import { dateSchema, orderedRange } from "@/lib/contract/time";
import { usageExportQuerySchema } from "@/lib/contract/usage";
import { USAGE_EXPORT_MAX_RESOURCES, usageExportSelection, usageExportUrl, type UsageFilters, type UsageOptions } from "@/lib/query/usage";
import { errorMessage } from "@/lib/query/fetcher";

const formSchema = z
  .object({
    projects: z.array(z.string()),
    resource_types: z.array(z.string()),
    regions: z.array(z.string()),
    start_date: dateSchema,
    end_date: dateSchema,
  })
  .superRefine(orderedRange("start_date", "end_date"));
type FormValues = z.infer<typeof formSchema>;

const FIELDS = ["projects", "resource_types", "regions", "start_date", "end_date"] as const;
const LABELS: Record<(typeof FIELDS)[number], string> = {
  projects: "Projects",
  resource_types: "Resource types",
  regions: "Regions",
  start_date: "Start date",
  end_date: "End date",
};

export interface UsageExportDialogProps {
  orgId: string;
  options: UsageOptions | undefined;
  projectLabel: (id: string) => string;
  defaults: UsageFilters | null;
}

/**
 * Resource-level usage as CSV, of the page's selection (its filters and dates, which the dialog
 * starts from). The operation requires every list, the resources' IDs among them: the gateway
 * names the selection's values and resources (usage options with `with_resources`), and the
 * export asks for exactly those, so the file holds the rows behind what the page shows.
 */
/** Loaded on the first click of its button (export-button.tsx), then open. */
export function UsageExportDialog({ orgId, options, projectLabel, defaults, defaultOpen = false }: UsageExportDialogProps & { defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen);
  const initial = (): FormValues => ({
    projects: defaults?.projects ?? [],
    resource_types: defaults?.resource_types ?? [],
    regions: defaults?.regions ?? [],
    start_date: defaults?.start_date ?? "",
    end_date: defaults?.end_date ?? "",
  });
  const form = useForm<FormValues>({ resolver: zodResolver(formSchema), defaultValues: initial() });
  const { errors } = form.formState;
  const message = (name: (typeof FIELDS)[number]) => {
    const m = errors[name]?.message;
    return m ? `${LABELS[name]} ${m}` : undefined;
  };

  const [problem, setProblem] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  // The export under way, by number: Cancel and closing the dialog move it on, so that a listing answered after them starts no download.
  const attempt = useRef(0);
  // So does leaving the page: no download, nor its toast, on another page.
  useEffect(
    () => () => {
      attempt.current += 1;
    },
    [],
  );

  const send = async (values: FormValues) => {
    const id = ++attempt.current;
    setProblem(null);
    setPending(true);
    let query;
    try {
      query = await usageExportSelection(orgId, values);
    } catch (error) {
      if (id === attempt.current) setProblem(`The selection's resources could not be listed: ${errorMessage(error)}`);
      return;
    } finally {
      if (id === attempt.current) setPending(false);
    }
    if (id !== attempt.current) return;
    if (query.resources.length === 0) {
      setProblem("No usage in this selection: choose other projects, resource types, regions or dates.");
      return;
    }
    if (query.resources.length > USAGE_EXPORT_MAX_RESOURCES) {
      setProblem(
        `This selection holds ${query.resources.length} resources; one export takes at most ${USAGE_EXPORT_MAX_RESOURCES}. Narrow the projects, resource types, regions or dates.`,
      );
      return;
    }
    // The operation's own rules (each list named, at most 100 values) before the browser leaves for the file.
    const checked = usageExportQuerySchema.safeParse(query);
    if (!checked.success) {
      for (const issue of checked.error.issues) {
        const field = FIELDS.find((f) => f === issue.path[0]);
        if (field) form.setError(field, { message: issue.message });
      }
      return;
    }
    downloadFrom(usageExportUrl(orgId, query));
    toast.success(`Usage export of ${values.start_date} to ${values.end_date} started (${query.resources.length} resources)`);
    setOpen(false);
  };

  return (
    <ExportDialogFrame
      open={open}
      onOpenChange={(next) => {
        if (next) form.reset(initial());
        attempt.current += 1;
        setPending(false);
        setProblem(null);
        setOpen(next);
      }}
      title="Export usage as CSV"
      description="Resource-level usage of the page's selection: one row per resource and day. Empty lists export every project, resource type and region."
      onSubmit={(e) => void form.handleSubmit(send)(e)}
      pending={pending}
    >
      <ListField control={form.control} name="projects" label="Projects" emptyLabel="All projects" options={projectOptions(options?.projects, projectLabel)} error={message("projects")} />
      <ListField control={form.control} name="resource_types" label="Resource types" emptyLabel="All resource types" options={valueOptions(options?.resource_types)} error={message("resource_types")} />
      <ListField control={form.control} name="regions" label="Regions" emptyLabel="All regions" options={valueOptions(options?.regions)} error={message("regions")} />
      <DateRangeFields
        idPrefix="usage-export"
        start={form.register("start_date")}
        end={form.register("end_date")}
        startError={message("start_date")}
        endError={message("end_date")}
      />
      {problem ? (
        <p role="alert" className="text-sm text-red-600 dark:text-red-400">
          {problem}
        </p>
      ) : null}
      {pending ? (
        <p role="status" className="text-sm text-slate-600 dark:text-slate-300">
          Listing the selection&apos;s resources…
        </p>
      ) : null}
    </ExportDialogFrame>
  );
}
