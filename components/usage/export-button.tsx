"use client";

import { lazyDialog } from "@/components/common/lazy";
import { exportTrigger } from "@/components/spend/export-trigger";
import type { UsageExportDialogProps } from "./export-dialog";

// The dialog's form (react-hook-form, the contract's zod schemas) is fetched on the first click.
const ExportDialog = lazyDialog(() => import("./export-dialog").then((m) => m.UsageExportDialog));

/** The "Export CSV" button; its dialog loads on first use. */
export function UsageExportButton(props: UsageExportDialogProps) {
  return <ExportDialog trigger={exportTrigger} {...props} />;
}
