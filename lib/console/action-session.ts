import "server-only";
import { consoleFailureMessage, logConsoleFailure } from "./failure";
import { MfaError } from "./mfa";
import { resolveConsoleSession, type ConsoleSession, type SessionState } from "./session";

/**
 * The frame of the MFA server actions (lib/console/mfa-actions.ts): the session from the request's cookie, the
 * kind of session an action needs, and every failure as a message. Not a "use server" module itself: what it
 * exports is not an action the browser may call.
 */

export type ActionResult<T = object> = ({ ok: true } & T) | { ok: false; error: string; field?: string };

export type Need = "pending" | "active" | "either";

export async function withSession<T>(
  need: Need,
  run: (session: ConsoleSession) => Promise<ActionResult<T>>,
  resolve: () => Promise<SessionState> = resolveConsoleSession,
): Promise<ActionResult<T>> {
  try {
    const state = await resolve();
    const allowed = state.status === "mfa" ? need !== "active" : state.status === "active" ? need !== "pending" : false;
    if (!allowed || (state.status !== "mfa" && state.status !== "active")) {
      return { ok: false, error: state.status === "active" ? "You are already signed in" : "Your session has ended; sign in again", field: "session" };
    }
    return await run(state.session);
  } catch (error) {
    if (error instanceof MfaError) return { ok: false, error: error.message, field: error.field };
    // The store away (a failover) or broken, a secret that cannot be unsealed: a message, not a 500, and a log line
    // without the statement's parameters (session ids, hashes of recovery codes).
    return { ok: false, error: consoleFailureMessage(logConsoleFailure(error, "an MFA action", "mfa")) };
  }
}
