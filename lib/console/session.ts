import "server-only";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { vaultLimits } from "@/lib/console/config";
import { consoleDb } from "@/lib/console/store/client";
import { lookupVaultSession } from "@/lib/console/vault";
import { sessionCookieName } from "./cookies";
import type { SignInReason } from "@/lib/contract/sign-in-messages";
import { authSecret } from "./secret";
import { sessionIdFromToken } from "./token";

/** Server-only: reads the session cookie and the vault. */

export interface ConsoleSession {
  sessionId: string;
  userId: string;
  email: string;
}

export type SessionState = { status: "active"; session: ConsoleSession } | { status: "none" | "expired" | "revoked" };

/** What reading a request's cookies needs: next/headers' cookies(), or RequestCookies over a request's headers. */
export interface CookieReader {
  get(name: string): { value: string } | undefined;
}

/**
 * The session a request's cookies name: the session cookie's token decoded, then the
 * vault asked whether that session is still good (its last_seen_at moves on). The one
 * implementation behind every page, route handler and the benchmark.
 */
export async function sessionStateFromCookies(jar: CookieReader): Promise<SessionState> {
  const sessionId = await sessionIdFromToken(jar.get(sessionCookieName())?.value, authSecret());
  if (!sessionId) return { status: "none" };
  const found = await lookupVaultSession(await consoleDb(), sessionId, vaultLimits());
  if (found.status === "active") return found;
  // A cookie whose vault entry is gone: expired, or signed out elsewhere.
  return { status: found.status === "revoked" ? "revoked" : "expired" };
}

/** Once per request (layout and page share it). */
export const resolveConsoleSession = cache(async (): Promise<SessionState> => sessionStateFromCookies(await cookies()));

/** The signed-in user's session: a valid, unexpired vault entry (its last_seen_at moves on). */
export async function getConsoleSession(): Promise<ConsoleSession | null> {
  const state = await resolveConsoleSession();
  return state.status === "active" ? state.session : null;
}

export function signInPath(state: SessionState["status"]): string {
  const reason: SignInReason = state === "revoked" ? "revoked" : state === "expired" ? "expired" : "required";
  return `/sign-in?reason=${reason}`;
}

/** The session, or a redirect to sign-in that says why. */
export async function requireConsoleSession(): Promise<ConsoleSession> {
  const state = await resolveConsoleSession();
  if (state.status === "active") return state.session;
  redirect(signInPath(state.status));
}
