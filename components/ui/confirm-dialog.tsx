"use client";

import { useState } from "react";
import type * as React from "react";
import { Button } from "./button";
import { Dialog, DialogContent, DialogFooter } from "./dialog";
import { Field, Input } from "./field";

interface ConfirmDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  /** What will happen, including what goes with it. */
  children: React.ReactNode;
  confirmLabel: string;
  /** When set, the user must type this exactly before confirming (destructive actions). */
  typeToConfirm?: string;
  pending?: boolean;
  onConfirm: () => void;
  tone?: "danger" | "primary";
}

/** Confirmation for consequential actions; destructive ones ask to type the resource's name. */
export function ConfirmDialog({ open, onOpenChange, title, children, confirmLabel, typeToConfirm, pending, onConfirm, tone = "danger" }: ConfirmDialogProps) {
  const [typed, setTyped] = useState("");
  // Whatever closed it (Cancel, Escape, the parent after its action), it opens again empty: a name typed before must
  // not leave a destructive action armed.
  const [wasOpen, setWasOpen] = useState(open);
  if (open !== wasOpen) {
    setWasOpen(open);
    if (!open) setTyped("");
  }
  const ready = typeToConfirm === undefined || typed === typeToConfirm;
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
    >
      <DialogContent title={title}>
        <div className="space-y-3 text-sm">{children}</div>
        {typeToConfirm !== undefined ? (
          <Field label={`Type ${typeToConfirm} to confirm`} htmlFor="confirm-name" className="mt-4">
            <Input id="confirm-name" autoComplete="off" value={typed} onChange={(e) => setTyped(e.target.value)} />
          </Field>
        ) : null}
        <DialogFooter>
          <Button variant="secondary" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button variant={tone} disabled={!ready || pending} onClick={onConfirm}>
            {pending ? "Working…" : confirmLabel}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
