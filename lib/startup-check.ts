import "server-only";
import { env } from "@/lib/env";
import { authSecret } from "@/lib/console/secret";

/**
 * The console's configuration, checked as its server starts (instrumentation.ts), not at its first request: a bad value
 * (or no AUTH_SECRET in production) stops the server with the variable named, instead of a server that answers every
 * page with a 500. The message only: the values are not repeated.
 */
export function checkConsoleConfiguration(): void {
  try {
    env();
    authSecret();
  } catch (error) {
    console.error(`the console cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
