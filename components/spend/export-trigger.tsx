"use client";

import { Download } from "lucide-react";
import { Button } from "@/components/ui/button";
import type { TriggerHandlers } from "@/components/ui/on-first-use";

/**
 * The "Export CSV" button of billing and usage, whose dialog loads on first use. `waitingFor`: why it
 * waits a moment (said on hover); meanwhile it opens nothing (its first-use handlers are left off, and
 * the loaded dialog's click is ignored) but keeps the focus, and a dialog already open stays.
 */
export function exportTrigger(handlers: TriggerHandlers, waitingFor?: string) {
  return (
    <Button variant="secondary" className="w-full sm:w-auto" aria-haspopup="dialog" waiting={Boolean(waitingFor)} title={waitingFor} {...(waitingFor ? {} : handlers)}>
      <Download /> Export CSV
    </Button>
  );
}
