"use client";

import { lazy, Suspense, useState } from "react";
import type * as React from "react";
import { Button } from "./button";
import type { DialogRoot } from "./dialog-parts";

// Radix's dialog (focus trap, scroll lock, layers, portal: about 20 KB gzipped) is fetched when a
// dialog first opens, not with every page that has one.
const load = () => import("./dialog-parts");
const LazyRoot = lazy(() => load().then((m) => ({ default: m.DialogRoot })));
const LazyContent = lazy(() => load().then((m) => ({ default: m.DialogContent })));

/**
 * A modal dialog, rendered by Radix once it has been open: until then it renders nothing and its
 * code is not loaded. Controlled (`open`) or opened from the start (`defaultOpen`).
 */
export function Dialog(props: React.ComponentProps<typeof DialogRoot>) {
  const [used, setUsed] = useState(Boolean(props.open || props.defaultOpen));
  if (!used && props.open) setUsed(true);
  if (!used) return null;
  return (
    <Suspense fallback={null}>
      <LazyRoot {...props} />
    </Suspense>
  );
}

/** An accessible modal's content: focus trapped, Escape and the close button dismiss unless told not to. */
export const DialogContent = LazyContent;

export function DialogFooter({ children }: { children: React.ReactNode }) {
  return <div className="mt-5 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">{children}</div>;
}

/** A form dialog's Cancel and submit buttons; the submit button is disabled and says so while pending. */
export function FormDialogFooter({ onCancel, pending, submitLabel, pendingLabel }: { onCancel: () => void; pending: boolean; submitLabel: string; pendingLabel: string }) {
  return (
    <DialogFooter>
      <Button type="button" variant="secondary" onClick={onCancel}>
        Cancel
      </Button>
      <Button type="submit" disabled={pending}>
        {pending ? pendingLabel : submitLabel}
      </Button>
    </DialogFooter>
  );
}
