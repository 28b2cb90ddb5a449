"use client";

import { lazyDialog } from "@/components/common/lazy";
import { exportTrigger } from "@/components/spend/export-trigger";
import type { BillingExportDialogProps } from "./export-dialog";

// The dialog's form (react-hook-form, the contract's zod schemas) is fetched on the first click.
const ExportDialog = lazyDialog(() => import("./export-dialog").then((m) => m.BillingExportDialog));

/**
 * The "Export CSV" button; its dialog loads on first use. While the range's filter values load it
 * waits: the dialog starts from the page's product lines, which are named from those values.
 */
export function BillingExportButton({ loading, ...props }: BillingExportDialogProps & { loading: boolean }) {
  return <ExportDialog trigger={(handlers) => exportTrigger(handlers, loading ? "Waiting for the range's filter values" : undefined)} {...props} />;
}
