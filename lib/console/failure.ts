import "server-only";
import { randomUUID } from "node:crypto";
import { errorDetail, errorTrace } from "@/lib/error-detail";
import { isStoreUnavailable } from "@/lib/gateway/errors";

/**
 * Logs a failure of the console's own work: the store away (a restart, a failover) as a warning, anything else as an
 * error with an id to quote; what failed and where, never the error as thrown (Drizzle's message holds the
 * statement's parameters: session ids, e-mails, sealed secrets).
 */
export function logConsoleFailure(error: unknown, step: string, component: string): { unavailable: true } | { unavailable: false; errorId: string } {
  if (isStoreUnavailable(error)) {
    process.stderr.write(`${JSON.stringify({ level: "warn", msg: `${step}: the store is unavailable`, component, error: errorDetail(error) || "unknown" })}\n`);
    return { unavailable: true };
  }
  const errorId = randomUUID();
  process.stderr.write(`${JSON.stringify({ level: "error", msg: `${step} failed`, component, error_id: errorId, error: errorTrace(error) })}\n`);
  return { unavailable: false, errorId };
}

/** What a person reads of a failure logConsoleFailure logged. */
export const consoleFailureMessage = (logged: ReturnType<typeof logConsoleFailure>): string =>
  logged.unavailable ? "The console's store is unavailable for a moment (restart or failover); try again shortly" : `The console could not complete the request; try again later (error ${logged.errorId})`;
