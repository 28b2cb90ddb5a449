"use client";

import { X } from "lucide-react";
import { Dialog as D } from "radix-ui";
import { useLayoutEffect, useRef } from "react";
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

/**
 * The control that now stands where `gone` stood: a re-render (a lazily loaded module rendering
 * its own trigger) may replace the element that opened a dialog with one of the same kind and name.
 */
function sameControl(gone: HTMLElement): HTMLElement | null {
  const name = gone.getAttribute("aria-label") ?? gone.textContent ?? "";
  for (const el of Array.from(document.querySelectorAll<HTMLElement>(gone.tagName))) {
    if (el.closest('[role="dialog"], [role="alertdialog"]')) continue;
    if ((el.getAttribute("aria-label") ?? el.textContent ?? "") === name) return el;
  }
  return null;
}

/** The control outside any dialog that last opened one. */
let lastOpener: HTMLElement | null = null;

/**
 * Where the focus returns when the dialog closes: the control that opened it. A dialog opened by
 * another one as it closes (a create form, then its one-time secret) had the focus handed to it by
 * nothing on the page, so it returns to what opened the first.
 */
export function useReturnFocus() {
  const opener = useRef<HTMLElement | null>(null);
  return {
    /** Called as the content mounts, before any field of it takes the focus. */
    noteOpener: () => {
      const active = document.activeElement;
      if (active instanceof HTMLElement && active !== document.body && !active.closest('[role="dialog"], [role="alertdialog"]')) lastOpener = active;
      opener.current = lastOpener;
    },
    onCloseAutoFocus: (e: Event) => {
      const target = opener.current;
      if (!target) return;
      e.preventDefault();
      const give = () => {
        const now = target.isConnected ? target : sameControl(target);
        if (now && document.activeElement !== now && (document.activeElement === document.body || !document.activeElement)) now.focus();
      };
      (target.isConnected ? target : sameControl(target))?.focus();
      // A re-render that replaces the opener as the dialog goes takes the focus with it: look once more.
      requestAnimationFrame(give);
    },
  };
}

/**
 * Notes what has the focus as the dialog's content mounts: the first thing in it, so before any
 * field of it takes the focus (autoFocus, which Radix then treats as the focus it was given).
 */
export function OpenerProbe({ onMount }: { onMount: () => void }) {
  const mounted = useRef(onMount);
  useLayoutEffect(() => mounted.current(), []);
  return null;
}

/** An accessible modal: focus trapped, Escape and the close button dismiss unless told not to; focus returns to its opener. */
export function DialogContent({ title, description, children, className, dismissible = true }: DialogContentProps) {
  const block = (e: Event) => {
    if (!dismissible) e.preventDefault();
  };
  const focus = useReturnFocus();
  return (
    <D.Portal>
      <D.Overlay className="fixed inset-0 z-50 bg-black/50 data-[state=open]:animate-in" />
      <D.Content
        onCloseAutoFocus={focus.onCloseAutoFocus}
        onEscapeKeyDown={block}
        onPointerDownOutside={block}
        onInteractOutside={block}
        className={cn(
          "fixed left-1/2 top-1/2 z-50 max-h-[90vh] w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg border border-slate-200 bg-white p-5 shadow-xl focus:outline-none dark:border-slate-700 dark:bg-slate-900",
          className,
        )}
      >
        <OpenerProbe onMount={focus.noteOpener} />
        <div className="mb-4 pr-8">
          <D.Title className="text-base font-semibold">{title}</D.Title>
          {description ? <D.Description className="mt-1 text-sm text-slate-600 dark:text-slate-300">{description}</D.Description> : <D.Description className="sr-only">{title}</D.Description>}
        </div>
        {children}
        {dismissible ? (
          <D.Close className="absolute right-3 top-3 rounded p-1 text-slate-500 dark:text-slate-400 hover:bg-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 dark:hover:bg-slate-800" aria-label="Close">
            <X className="size-4" />
          </D.Close>
        ) : null}
      </D.Content>
    </D.Portal>
  );
}
