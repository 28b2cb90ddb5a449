"use client";

import { X } from "lucide-react";
import { Dialog as D } from "radix-ui";
import type * as React from "react";
import { cn } from "@/lib/utils";

/**
 * The Radix dialog itself. Pages import `Dialog` and `DialogContent` from ./dialog, which load
 * this module when a dialog first opens; code that is itself loaded on first use (the export
 * dialogs, with their own trigger) imports from here directly.
 */
export const DialogRoot = D.Root;
export const DialogTrigger = D.Trigger;
export const DialogClose = D.Close;

interface DialogContentProps {
  title: string;
  description?: React.ReactNode;
  children: React.ReactNode;
  className?: string;
  /** Set false for dialogs that must not close until the user acts (one-time secrets). */
  dismissible?: boolean;
}

/** An accessible modal: focus trapped, Escape and the close button dismiss unless told not to. */
export function DialogContent({ title, description, children, className, dismissible = true }: DialogContentProps) {
  const block = (e: Event) => {
    if (!dismissible) e.preventDefault();
  };
  return (
    <D.Portal>
      <D.Overlay className="fixed inset-0 z-50 bg-black/50 data-[state=open]:animate-in" />
      <D.Content
        onEscapeKeyDown={block}
        onPointerDownOutside={block}
        onInteractOutside={block}
        className={cn(
          "fixed left-1/2 top-1/2 z-50 max-h-[90vh] w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg border border-slate-200 bg-white p-5 shadow-xl focus:outline-none dark:border-slate-700 dark:bg-slate-900",
          className,
        )}
      >
        <div className="mb-4 pr-8">
          <D.Title className="text-base font-semibold">{title}</D.Title>
          {description ? <D.Description className="mt-1 text-sm text-slate-600 dark:text-slate-300">{description}</D.Description> : <D.Description className="sr-only">{title}</D.Description>}
        </div>
        {children}
        {dismissible ? (
          <D.Close className="absolute right-3 top-3 rounded p-1 text-slate-500 hover:bg-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 dark:hover:bg-slate-800" aria-label="Close">
            <X className="size-4" />
          </D.Close>
        ) : null}
      </D.Content>
    </D.Portal>
  );
}
