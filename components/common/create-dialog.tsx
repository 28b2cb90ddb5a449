"use client";

import { useState, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
// Modules using this are themselves loaded on first use (lazyDialog): Radix directly, with no second fetch on opening.
import { DialogContent, DialogRoot as Dialog } from "@/components/ui/dialog-parts";
import { SecretDialog, type SecretField } from "./secret-dialog";

/** A secret to show once: the dialog's title, the base of its download file names, the fields. */
export interface OneTimeSecret {
  title: string;
  fileBase: string;
  fields: SecretField[];
}

/**
 * The state of a create dialog: whether the form is open, and the one-time secret the create
 * returned, kept only here, in memory, until the user confirms they saved it. `showSecret`
 * closes the form and shows the secret.
 */
export function useCreateDialog(defaultOpen: boolean) {
  const [open, setOpen] = useState(defaultOpen);
  const [secret, setSecret] = useState<OneTimeSecret | null>(null);
  return {
    open,
    setOpen,
    secret,
    showSecret: (shown: OneTimeSecret) => {
      setOpen(false);
      setSecret(shown);
    },
    clearSecret: () => setSecret(null),
  };
}

interface CreateDialogProps {
  flow: ReturnType<typeof useCreateDialog>;
  /** The trigger's text ("New key"). */
  label: string;
  /** Set when the caller may not create: the trigger is disabled and says why. */
  disabledReason?: string;
  /** The id of the note beside the trigger that repeats the reason. */
  reasonId?: string;
  /** Before the form opens (reset the mutation's last error). */
  onOpen: () => void;
  title: string;
  description: ReactNode;
  /** The form. */
  children: ReactNode;
  /** After the secret dialog closes (drop the response, which holds the secret, from the mutation's state). */
  onSecretClosed?: () => void;
  /** When the form's dialog is closed without a create (Escape, a click outside): let go of what was typed. */
  onDismiss?: () => void;
}

/** "Create, then show the secret once": the trigger, the form's dialog and the one-time secret dialog. */
export function CreateDialog({ flow, label, disabledReason, reasonId, onOpen, title, description, children, onSecretClosed, onDismiss }: CreateDialogProps) {
  return (
    <>
      <Button
        disabled={disabledReason !== undefined}
        title={disabledReason}
        aria-describedby={disabledReason ? reasonId : undefined}
        onClick={() => {
          onOpen();
          flow.setOpen(true);
        }}
      >
        {label}
      </Button>
      <Dialog
        open={flow.open}
        onOpenChange={(next) => {
          flow.setOpen(next);
          if (!next) onDismiss?.();
        }}
      >
        <DialogContent title={title} description={description}>
          {children}
        </DialogContent>
      </Dialog>
      {onSecretClosed ? (
        <SecretDialog
          open={flow.secret !== null}
          title={flow.secret?.title ?? ""}
          fileBase={flow.secret?.fileBase ?? "secret"}
          fields={flow.secret?.fields ?? []}
          onClose={() => {
            flow.clearSecret();
            onSecretClosed();
          }}
        />
      ) : null}
    </>
  );
}
