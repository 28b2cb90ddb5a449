import { decode } from "next-auth/jwt";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { vaultLimits } from "@/lib/cloud/config";
import { consoleDb } from "@/lib/cloud/store/client";
import { lookupVaultSession } from "@/lib/cloud/vault";
import { sessionCookieName } from "./cookies";
import type { SignInReason } from "./messages";
import { authSecret } from "./secret";

/** Server-only: reads the session cookie and the vault. */

export interface ConsoleSession {
  sessionId: string;
  userId: string;
  email: string;
}

export type SessionState = { status: "active"; session: ConsoleSession } | { status: "none" | "expired" | "revoked" };

/** The vault session id inside the (encrypted) next-auth cookie, if the cookie is good. */
async function sessionIdFromCookie(): Promise<string | null> {
  const jar = await cookies();
  const token = jar.get(sessionCookieName())?.value;
  if (!token) return null;
  try {
    const payload = await decode({ token, secret: authSecret() });
    return typeof payload?.sid === "string" && payload.sid ? payload.sid : null;
  } catch {
    return null;
  }
}

/** Once per request (layout and page share it). */
export const resolveConsoleSession = cache(async (): Promise<SessionState> => {
  const sessionId = await sessionIdFromCookie();
  if (!sessionId) return { status: "none" };
  const found = await lookupVaultSession(await consoleDb(), sessionId, vaultLimits());
  if (found.status === "active") return found;
  // A cookie whose vault entry is gone: expired, or signed out elsewhere.
  return { status: found.status === "revoked" ? "revoked" : "expired" };
});

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
