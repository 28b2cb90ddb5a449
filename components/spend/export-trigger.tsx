"use client";

import { Download } from "lucide-react";
import { Button } from "@/components/ui/button";
import type { TriggerHandlers } from "@/components/ui/on-first-use";

/** The "Export CSV" button of billing and usage, whose dialog loads on first use. */
export function exportTrigger(handlers: TriggerHandlers, disabled = false) {
  return (
    <Button variant="secondary" className="w-full sm:w-auto" aria-haspopup="dialog" disabled={disabled} {...handlers}>
      <Download /> Export CSV
    </Button>
  );
}
