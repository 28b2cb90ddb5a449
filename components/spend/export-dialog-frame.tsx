"use client";

import { Download } from "lucide-react";
import type { FormEvent, ReactNode } from "react";
import type { UseFormRegisterReturn } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { DialogFooter } from "@/components/ui/dialog";
// Loaded on first use already (the export buttons): Radix directly, so the trigger never blinks out.
import { DialogContent, DialogRoot as Dialog, DialogTrigger } from "@/components/ui/dialog-parts";
import { Field, Input } from "@/components/ui/field";

interface ExportDialogFrameProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: string;
  onSubmit: (e: FormEvent<HTMLFormElement>) => void;
  /** The form's fields. */
  children: ReactNode;
}

/** The CSV export dialog of billing and usage: its "Export CSV" trigger, the form, Cancel and "Download CSV". */
export function ExportDialogFrame({ open, onOpenChange, title, description, onSubmit, children }: ExportDialogFrameProps) {
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
            <Button type="submit">
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
