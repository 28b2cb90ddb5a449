/**
 * What a log line says of an error: the message of what it wraps, when it wraps something (Drizzle's wrapper repeats
 * the statement and its parameters, which are a request's data: e-mails, key ids, sealed secrets; fetch's
 * "fetch failed" hides the socket's reason), otherwise its own.
 */
export function errorDetail(error: unknown): string {
  if (!(error instanceof Error)) return error === undefined ? "" : String(error);
  const cause: unknown = error.cause;
  if (cause instanceof Error && cause.message) return cause.message;
  return error.message;
}

/**
 * An unexpected error for the log: its detail (above) and where it was thrown, its stack's frames only. The stack's
 * first lines are the message as thrown: Drizzle's holds the failed statement and every parameter of it.
 */
export function errorTrace(error: unknown): string {
  const frames = error instanceof Error ? (error.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line)) : [];
  return [errorDetail(error), ...frames].join("\n");
}
