"use client";

import { Download } from "lucide-react";
import type { FormEvent, ReactNode } from "react";
import { Controller, type Control, type FieldPath, type FieldValues, type UseFormRegisterReturn } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { DialogFooter } from "@/components/ui/dialog";
// Loaded on first use already (the export buttons): Radix directly, so the trigger never blinks out.
import { DialogContent, DialogRoot as Dialog, DialogTrigger } from "@/components/ui/dialog-parts";
import { Field, Input } from "@/components/ui/field";
import { MultiSelect, type MultiSelectOption } from "@/components/ui/multi-select";
import { compareNames } from "@/lib/compare";

interface ExportDialogFrameProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: string;
  onSubmit: (e: FormEvent<HTMLFormElement>) => void;
  /** An export is under way: "Download CSV" waits for it, so that a second click starts no second download. */
  pending?: boolean;
  /** The form's fields. */
  children: ReactNode;
}

/** The CSV export dialog of billing and usage: its "Export CSV" trigger, the form, Cancel and "Download CSV". */
export function ExportDialogFrame({ open, onOpenChange, title, description, onSubmit, pending = false, children }: ExportDialogFrameProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger asChild>
        <Button variant="secondary" className="w-full sm:w-auto">
          <Download /> Export CSV
        </Button>
      </DialogTrigger>
      <DialogContent title={title} description={description}>
        <form noValidate onSubmit={onSubmit} className="space-y-4">
          {children}
          <DialogFooter>
            <Button type="button" variant="secondary" onClick={() => onOpenChange(false)}>
              Cancel
            </Button>
            <Button type="submit" disabled={pending}>
              <Download /> Download CSV
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** The export's start and end dates, side by side. */
export function DateRangeFields({
  idPrefix,
  start,
  end,
  startError,
  endError,
}: {
  idPrefix: string;
  start: UseFormRegisterReturn;
  end: UseFormRegisterReturn;
  startError: string | undefined;
  endError: string | undefined;
}) {
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <Field label="Start date" htmlFor={`${idPrefix}-start`} error={startError}>
        <Input id={`${idPrefix}-start`} type="date" {...start} />
      </Field>
      <Field label="End date" htmlFor={`${idPrefix}-end`} error={endError}>
        <Input id={`${idPrefix}-end`} type="date" {...end} />
      </Field>
    </div>
  );
}

/** The choices of a project list: each project by its label, in name order. */
export function projectOptions(ids: string[] | undefined, projectLabel: (id: string) => string): MultiSelectOption[] {
  return (ids ?? []).map((id) => ({ value: id, label: projectLabel(id) })).sort((a, b) => compareNames(a.label, b.label));
}

/** The choices of a list of plain values (product lines, resource types, regions). */
export function valueOptions(values: string[] | undefined): MultiSelectOption[] {
  return (values ?? []).map((v) => ({ value: v }));
}

/** One of the export's lists (empty for "all"), with its error under it if any. */
export function ListField<T extends FieldValues>({
  control,
  name,
  label,
  emptyLabel,
  options,
  error,
}: {
  control: Control<T>;
  name: FieldPath<T>;
  label: string;
  emptyLabel: string;
  options: MultiSelectOption[];
  error?: string | undefined;
}) {
  return (
    <>
      <Controller
        control={control}
        name={name}
        render={({ field }) => <MultiSelect label={label} emptyLabel={emptyLabel} options={options} value={field.value as string[]} onChange={field.onChange} />}
      />
      {error ? (
        <p role="alert" className="text-xs text-red-600 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </>
  );
}
