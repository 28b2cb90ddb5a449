"use client";

import { AlertTriangle, Inbox, Lock } from "lucide-react";
import type * as React from "react";
import { Button } from "./button";

export function EmptyState({ title, children, action }: { title: string; children?: React.ReactNode; action?: React.ReactNode }) {
  return (
    <div className="flex flex-col items-center gap-2 px-4 py-8 text-center">
      <Inbox className="size-6 text-slate-400" aria-hidden />
      <p className="text-sm font-medium">{title}</p>
      {children ? <div className="text-sm text-slate-500 dark:text-slate-400">{children}</div> : null}
      {action}
    </div>
  );
}

interface ErrorLike {
  status?: number;
  message?: string;
  body?: unknown;
}

function errorMessage(e: ErrorLike): string {
  return (
    (e.body && typeof e.body === "object" && "message" in e.body ? String((e.body as { message: unknown }).message) : undefined) ??
    e.message ??
    "Something went wrong."
  );
}

/**
 * Whether data already on screen stays there when refreshing it failed. A moment's failure (a 5xx, a 503 during a
 * failover, the network) leaves it, with a note: replacing the view would also take whatever it holds open (a dialog
 * showing a secret once). Not when the answer says the data is no longer the caller's to see (401, 403) or is gone (404).
 */
export function keepsLoadedData(error: unknown): boolean {
  const status = (error as ErrorLike | null)?.status;
  return status !== 401 && status !== 403 && status !== 404;
}

/** The note above data still shown after refreshing it failed (keepsLoadedData), with Retry. */
export function RefreshError({ error, onRetry, what }: { error: unknown; onRetry?: () => void; what: string }) {
  return (
    <div role="alert" className="flex flex-wrap items-center gap-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
      <AlertTriangle className="size-4 shrink-0" aria-hidden />
      <span>
        Could not refresh {what}: {errorMessage((error ?? {}) as ErrorLike)} Showing what was last loaded.
      </span>
      <RetryButton onRetry={onRetry} />
    </div>
  );
}

function RetryButton({ onRetry }: { onRetry?: () => void }) {
  return onRetry ? (
    <Button variant="secondary" size="sm" onClick={onRetry}>
      Retry
    </Button>
  ) : null;
}

/** Explains an error; a 403 says what is missing rather than showing a blank panel. */
export function ErrorState({ error, onRetry, what }: { error: unknown; onRetry?: () => void; what: string }) {
  const e = (error ?? {}) as ErrorLike;
  const message = errorMessage(e);
  if (e.status === 403) {
    return (
      <div role="alert" className="flex flex-col items-center gap-2 px-4 py-8 text-center">
        <Lock className="size-6 text-amber-500" aria-hidden />
        <p className="text-sm font-medium">You don&apos;t have access to {what}.</p>
        <p className="text-sm text-slate-500 dark:text-slate-400">{message}. Ask an owner of the organization for the permission.</p>
      </div>
    );
  }
  return (
    <div role="alert" className="flex flex-col items-center gap-2 px-4 py-8 text-center">
      <AlertTriangle className="size-6 text-red-500" aria-hidden />
      <p className="text-sm font-medium">Could not load {what}.</p>
      <p className="text-sm text-slate-500 dark:text-slate-400">{message}</p>
      <RetryButton onRetry={onRetry} />
    </div>
  );
}
