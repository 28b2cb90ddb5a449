"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "@/components/ui/toast";
import { z } from "zod";
import { downloadFrom } from "@/components/common/download";
import { Field, Textarea } from "@/components/ui/field";
import { DateRangeFields, ExportDialogFrame, ListField, projectOptions, valueOptions } from "@/components/spend/export-dialog-frame";
import { dateSchema, orderedRange } from "@/lib/contract/time";
import { usageExportQuerySchema } from "@/lib/contract/usage";
import { usageExportUrl, type UsageFilters, type UsageOptions } from "@/lib/query/usage";

const formSchema = z
  .object({
    projects: z.array(z.string()),
    resource_types: z.array(z.string()),
    regions: z.array(z.string()),
    resources: z.string().trim().min(1, "name at least one resource ID"),
    start_date: dateSchema,
    end_date: dateSchema,
  })
  .superRefine(orderedRange("start_date", "end_date"));
type FormValues = z.infer<typeof formSchema>;

const FIELDS = ["projects", "resource_types", "regions", "resources", "start_date", "end_date"] as const;
const LABELS: Record<(typeof FIELDS)[number], string> = {
  projects: "Projects",
  resource_types: "Resource types",
  regions: "Regions",
  resources: "Resource IDs",
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
 * Resource-level usage as CSV. The operation requires every list, so an empty
 * choice sends all the values the options name; the resources are the IDs of
 * the VMs, disks… to include.
 */
/** Loaded on the first click of its button (export-button.tsx), then open. */
export function UsageExportDialog({ orgId, options, projectLabel, defaults, defaultOpen = false }: UsageExportDialogProps & { defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen);
  const initial = (): FormValues => ({
    projects: defaults?.projects ?? [],
    resource_types: defaults?.resource_types ?? [],
    regions: defaults?.regions ?? [],
    resources: "",
    start_date: defaults?.start_date ?? "",
    end_date: defaults?.end_date ?? "",
  });
  const form = useForm<FormValues>({ resolver: zodResolver(formSchema), defaultValues: initial() });
  const { errors } = form.formState;
  const message = (name: (typeof FIELDS)[number]) => {
    const m = errors[name]?.message;
    return m ? `${LABELS[name]} ${m}` : undefined;
  };

  const submit = form.handleSubmit((values) => {
    const orAll = (chosen: string[], all: string[] | undefined) => (chosen.length ? chosen : (all ?? []));
    const query = {
      projects: orAll(values.projects, options?.projects),
      resource_types: orAll(values.resource_types, options?.resource_types),
      regions: orAll(values.regions, options?.regions),
      resources: values.resources.split(/[\s,]+/).filter(Boolean),
      start_date: values.start_date,
      end_date: values.end_date,
    };
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
    toast.success(`Usage export of ${values.start_date} to ${values.end_date} started`);
    setOpen(false);
  });

  return (
    <ExportDialogFrame
      open={open}
      onOpenChange={(next) => {
        if (next) form.reset(initial());
        setOpen(next);
      }}
      title="Export usage as CSV"
      description="Resource-level usage: one row per resource and day. Empty lists export every project, resource type and region."
      onSubmit={(e) => void submit(e)}
    >
      <ListField control={form.control} name="projects" label="Projects" emptyLabel="All projects" options={projectOptions(options?.projects, projectLabel)} error={message("projects")} />
      <ListField control={form.control} name="resource_types" label="Resource types" emptyLabel="All resource types" options={valueOptions(options?.resource_types)} error={message("resource_types")} />
      <ListField control={form.control} name="regions" label="Regions" emptyLabel="All regions" options={valueOptions(options?.regions)} error={message("regions")} />
      <Field
        label="Resource IDs"
        htmlFor="usage-export-resources"
        hint="The operation requires the IDs of the resources to include (up to 100), separated by commas, spaces or new lines."
        error={message("resources")}
      >
        <Textarea id="usage-export-resources" rows={3} spellCheck={false} text="mono" {...form.register("resources")} />
      </Field>
      <DateRangeFields
        idPrefix="usage-export"
        start={form.register("start_date")}
        end={form.register("end_date")}
        startError={message("start_date")}
        endError={message("end_date")}
      />
    </ExportDialogFrame>
  );
}
