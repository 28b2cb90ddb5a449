"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { Download } from "lucide-react";
import { useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { toast } from "@/components/ui/toast";
import { z } from "zod";
import { downloadFrom } from "@/components/common/download";
import { Button } from "@/components/ui/button";
import { DialogFooter } from "@/components/ui/dialog";
// Loaded on first use already (export-button.tsx): Radix directly, so its trigger never blinks out.
import { DialogContent, DialogRoot as Dialog, DialogTrigger } from "@/components/ui/dialog-parts";
import { Field, Input, Textarea } from "@/components/ui/field";
import { MultiSelect } from "@/components/ui/multi-select";
import { dateSchema, orderedRange } from "@/lib/contract/time";
import { usageExportQuerySchema } from "@/lib/contract/usage";
import { usageExportUrl, type UsageFilters, type UsageOptions } from "@/lib/query/usage";
import { compareNames } from "@/lib/format";

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
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (next) form.reset(initial());
        setOpen(next);
      }}
    >
      <DialogTrigger asChild>
        <Button variant="secondary" className="w-full sm:w-auto">
          <Download /> Export CSV
        </Button>
      </DialogTrigger>
      <DialogContent
        title="Export usage as CSV"
        description="Resource-level usage: one row per resource and day. Empty lists export every project, resource type and region."
      >
        <form noValidate onSubmit={(e) => void submit(e)} className="space-y-4">
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
          {message("projects") ? <p role="alert" className="text-xs text-red-600 dark:text-red-400">{message("projects")}</p> : null}
          <Controller
            control={form.control}
            name="resource_types"
            render={({ field }) => (
              <MultiSelect
                label="Resource types"
                emptyLabel="All resource types"
                options={(options?.resource_types ?? []).map((v) => ({ value: v }))}
                value={field.value}
                onChange={field.onChange}
              />
            )}
          />
          {message("resource_types") ? <p role="alert" className="text-xs text-red-600 dark:text-red-400">{message("resource_types")}</p> : null}
          <Controller
            control={form.control}
            name="regions"
            render={({ field }) => (
              <MultiSelect label="Regions" emptyLabel="All regions" options={(options?.regions ?? []).map((v) => ({ value: v }))} value={field.value} onChange={field.onChange} />
            )}
          />
          {message("regions") ? <p role="alert" className="text-xs text-red-600 dark:text-red-400">{message("regions")}</p> : null}
          <Field
            label="Resource IDs"
            htmlFor="usage-export-resources"
            hint="The operation requires the IDs of the resources to include (up to 100), separated by commas, spaces or new lines."
            error={message("resources")}
          >
            <Textarea id="usage-export-resources" rows={3} spellCheck={false} text="mono" {...form.register("resources")} />
          </Field>
          <div className="grid gap-3 sm:grid-cols-2">
            <Field label="Start date" htmlFor="usage-export-start" error={message("start_date")}>
              <Input id="usage-export-start" type="date" {...form.register("start_date")} />
            </Field>
            <Field label="End date" htmlFor="usage-export-end" error={message("end_date")}>
              <Input id="usage-export-end" type="date" {...form.register("end_date")} />
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
