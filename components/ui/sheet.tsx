"use client";

import { X } from "lucide-react";
import { Dialog as D } from "radix-ui";
import type * as React from "react";
import { cn } from "@/lib/utils";
import { OpenerProbe, useReturnFocus } from "./dialog-parts";

export const Sheet = D.Root;

interface SheetContentProps {
  title: string;
  description?: React.ReactNode;
  children: React.ReactNode;
  className?: string;
}

/**
 * A modal panel sliding in from the right: for the details of one row beside its list. Full width on phones. Opened by
 * no Radix trigger (a row's button sets the page's state), so focus returns to its opener as a dialog's does: Radix
 * alone would give it to no one.
 */
export function SheetContent({ title, description, children, className }: SheetContentProps) {
  const focus = useReturnFocus();
  return (
    <D.Portal>
      <D.Overlay className="fixed inset-0 z-50 bg-black/40" />
      <D.Content
        onCloseAutoFocus={focus.onCloseAutoFocus}
        className={cn(
          "fixed inset-y-0 right-0 z-50 flex w-full max-w-xl flex-col border-l border-slate-200 bg-white shadow-xl focus:outline-none dark:border-slate-700 dark:bg-slate-900",
          className,
        )}
      >
        <OpenerProbe onMount={focus.noteOpener} />
        <div className="flex items-start justify-between gap-4 border-b border-slate-200 px-5 py-4 dark:border-slate-800">
          <div className="min-w-0">
            <D.Title className="truncate text-base font-semibold">{title}</D.Title>
            {description ? (
              <D.Description className="mt-1 text-sm text-slate-600 dark:text-slate-300">{description}</D.Description>
            ) : (
              <D.Description className="sr-only">{title}</D.Description>
            )}
          </div>
          <D.Close
            className="rounded p-1 text-slate-500 dark:text-slate-400 hover:bg-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 dark:hover:bg-slate-800"
            aria-label="Close"
          >
            <X className="size-4" />
          </D.Close>
        </div>
        <div className="min-h-0 flex-1 overflow-y-auto px-5 py-4">{children}</div>
      </D.Content>
    </D.Portal>
  );
}
