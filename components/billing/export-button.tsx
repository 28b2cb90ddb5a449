"use client";

import { lazyDialog } from "@/components/common/lazy";
import { exportTrigger } from "@/components/spend/export-trigger";
import type { BillingExportDialogProps } from "./export-dialog";

// The dialog's form (react-hook-form, the contract's zod schemas) is fetched on the first click.
const ExportDialog = lazyDialog(() => import("./export-dialog").then((m) => m.BillingExportDialog));

/** The "Export CSV" button; its dialog loads on first use. */
export function BillingExportButton(props: BillingExportDialogProps) {
  return <ExportDialog trigger={exportTrigger} {...props} />;
}
