"use client";

import { Download } from "lucide-react";
import { lazy } from "react";
import { Button } from "@/components/ui/button";
import { OnFirstUse, type TriggerHandlers } from "@/components/ui/on-first-use";
import type { UsageExportDialogProps } from "./export-dialog";

// The dialog's form (react-hook-form, the contract's zod schemas) is fetched on the first click.
const load = () => import("./export-dialog");
const UsageExportDialog = lazy(() => load().then((m) => ({ default: m.UsageExportDialog })));

/** The "Export CSV" button; its dialog loads on first use. */
export function UsageExportButton(props: UsageExportDialogProps) {
  const trigger = (handlers: TriggerHandlers) => (
    <Button variant="secondary" className="w-full sm:w-auto" aria-haspopup="dialog" {...handlers}>
      <Download /> Export CSV
    </Button>
  );
  return <OnFirstUse trigger={trigger} preload={load} menu={<UsageExportDialog {...props} defaultOpen />} />;
}
