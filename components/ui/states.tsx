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

/** Explains an error; a 403 says what is missing rather than showing a blank panel. */
export function ErrorState({ error, onRetry, what }: { error: unknown; onRetry?: () => void; what: string }) {
  const e = (error ?? {}) as ErrorLike;
  const message =
    (e.body && typeof e.body === "object" && "message" in e.body ? String((e.body as { message: unknown }).message) : undefined) ??
    e.message ??
    "Something went wrong.";
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
      {onRetry ? (
        <Button variant="secondary" size="sm" onClick={onRetry}>
          Retry
        </Button>
      ) : null}
    </div>
  );
}
