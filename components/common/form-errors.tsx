"use client";

import { AlertTriangle } from "lucide-react";
import type { FieldValues, Path, UseFormSetError } from "react-hook-form";
import { ApiError, errorMessage } from "@/lib/query/fetcher";

/** "Must not be empty" from the contract's "must not be empty". */
export function sentence(message: string | undefined): string | undefined {
  return message ? message.charAt(0).toUpperCase() + message.slice(1) : undefined;
}

/**
 * Puts the gateway's 400 ("body.email_domains[0]: … ; body.name: …") beside the
 * fields it names; `fields` maps the body's field paths (indexes dropped) to the form's.
 */
export function applyGatewayErrors<T extends FieldValues>(error: unknown, setError: UseFormSetError<T>, fields: Record<string, Path<T>>): void {
  if (!(error instanceof ApiError) || error.status !== 400) return;
  for (const part of error.message.split("; ")) {
    const match = /^body\.([^:]+): (.+)$/.exec(part);
    if (!match?.[1] || !match[2]) continue;
    const field = fields[match[1].replace(/\[\d+\]/g, "")];
    if (field) setError(field, { type: "server", message: match[2] });
  }
}

/** The failure of a submitted form, as the gateway worded it (a 403 says what is missing). */
export function FormError({ error }: { error: unknown }) {
  if (!error) return null;
  const forbidden = error instanceof ApiError && error.status === 403;
  return (
    <div
      role="alert"
      className="mt-4 flex gap-2 rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
    >
      <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden />
      <p>
        {forbidden ? "You are not allowed to do this: " : "The gateway refused this: "}
        {errorMessage(error)}
      </p>
    </div>
  );
}
