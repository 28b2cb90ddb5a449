import "server-only";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { vaultLimits } from "@/lib/console/config";
import { consoleDb } from "@/lib/console/store/client";
import { gatewayIsEmbedded } from "@/lib/console/config";
import { endSsoProviderSessions, lookupVaultSession, markVaultSessionRevoked, sessionAccessKeyId, sweepExpiredSessions, type VaultSession } from "@/lib/console/vault";
import { embeddedGateway } from "@/lib/gateway/runtime";
import { latestSuspension } from "@/lib/gateway/store/queries/access";
import { findActiveApiKey } from "@/lib/gateway/store/queries/api-keys";
import { lastFactorsReset } from "@/lib/gateway/store/queries/mfa-factors";
import { ssoRequiredAnywhere } from "@/lib/gateway/store/queries/people";
import { sessionCookieName } from "./cookies";
import { MFA_STEP_PATH, type SignInReason } from "@/lib/contract/sign-in-messages";
import { authSecret } from "./secret";
import { ssoProviderOrganization } from "./sso";
import { sessionIdFromToken } from "./token";

/** Server-only: reads the session cookie and the vault. */

export interface ConsoleSession {
  sessionId: string;
  userId: string;
  email: string;
  /** A second factor is still owed: the session is "mfa", not "active", until it is given. */
  mfaPending: boolean;
  /** How the session was signed in ("api_key" or "sso", then the second factor given). */
  factors: readonly string[];
  /** The SSO provider that signed the session in; its key acts in the provider's organization only. */
  ssoProviderId?: string;
}

/**
 * "mfa": signed in with a key or SSO, but an organization of the person requires a second factor that
 * has not been given yet. Only the MFA step of sign-in serves such a session.
 */
export type SessionState = { status: "active" | "mfa"; session: ConsoleSession } | { status: "none" | "expired" | "revoked" };

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
  const db = await consoleDb();
  const limits = vaultLimits();
  sweepExpiredSessions(db, limits);
  const found = await lookupVaultSession(db, sessionId, limits);
  if (found.status === "active") {
    const { ssoProviderId } = found.session;
    // Its provider, and the key minted for it, are the embedded gateway's, which this console no longer runs.
    if (ssoProviderId && !gatewayIsEmbedded()) {
      await markVaultSessionRevoked(db, sessionId);
      return { status: "revoked" };
    }
    const ssoOrganization = ssoProviderId ? await ssoProviderOrganization(ssoProviderId) : undefined;
    // Deleting an SSO provider ends every session it signed in, this one first.
    if (ssoProviderId && ssoOrganization === null) {
      await endSsoProviderSessions(db, ssoProviderId);
      return { status: "revoked" };
    }
    if (
      !(await suspendedSinceStart(found.session, ssoOrganization ?? undefined)) &&
      !(await noLongerAdmitted(found.session)) &&
      !(await factorsResetSinceStart(found.session))
    ) {
      return found.session.mfaPending ? { status: "mfa", session: found.session } : found;
    }
    await markVaultSessionRevoked(db, sessionId);
    return { status: "revoked" };
  }
  // A cookie whose vault entry is gone: expired, or signed out elsewhere.
  return { status: found.status === "revoked" ? "revoked" : "expired" };
}

/**
 * Whether, since this session began, a suspension (SCIM `active: false`) took everything it acts in:
 * the SSO provider's organization for a session it signed in, every organization of the person for a
 * key session. Such a session ends at once; one organization's suspension ends no session that still
 * acts in another. Read through the embedded gateway's read cache, which any store change empties, so
 * the answer is immediate and costs nothing while nothing changes. (The gateway refuses a suspended
 * person's calls for that organization's data in any case, a remote one included.)
 */
async function suspendedSinceStart(session: VaultSession, ssoOrganization: string | undefined): Promise<boolean> {
  if (!gatewayIsEmbedded() || !session.userId || session.startedAt === undefined) return false;
  const { store, deps } = await embeddedGateway();
  const at = await deps.reads.get(`suspended:${session.userId}:${ssoOrganization ?? ""}`, () => latestSuspension(store.db, session.userId, ssoOrganization));
  return at !== null && at >= session.startedAt;
}

/**
 * Whether what let the session in no longer does: its key was revoked, deleted or has expired (the usual
 * answer to a stolen key, with an MFA reset: a session open with it must not go on adding factors), or,
 * for a key session, the person must now sign in through SSO. Checked at every request, not only at the
 * next gateway call, which the MFA step's and the account page's actions never make. Read through the
 * embedded gateway's read cache, as suspensions are: free while nothing changes.
 */
async function noLongerAdmitted(session: VaultSession): Promise<boolean> {
  const accessKeyId = sessionAccessKeyId(session);
  if (!gatewayIsEmbedded() || !session.userId || !accessKeyId) return false;
  const { store, deps } = await embeddedGateway();
  const key = await deps.reads.get(`console-key:${accessKeyId}`, async () => {
    const found = await findActiveApiKey(store.db, accessKeyId);
    return found ? { userId: found.userId, expiresAt: found.expiresAt } : null;
  });
  if (!key || key.userId !== session.userId || (key.expiresAt !== null && key.expiresAt.getTime() <= Date.now())) return true;
  return !session.ssoProviderId && (await deps.reads.get(`sso-required:${session.userId}`, () => ssoRequiredAnywhere(store.db, session.userId)));
}

/**
 * Whether an admin reset the person's second factors since this session began, with a key other than the session's
 * own: the session ends, as one that planted a factor must (else it enrols its own next, and the person's next
 * sign-in has to answer it). However the reset came: through /api/cloud (which also ends the others at once), or
 * straight to the gateway (a script, another admin's key). An admin resetting their own factors through the console
 * signs with their session's key, and keeps that session. Read through the read cache, as suspensions are.
 */
async function factorsResetSinceStart(session: VaultSession): Promise<boolean> {
  if (!gatewayIsEmbedded() || !session.userId || session.startedAt === undefined) return false;
  const { store, deps } = await embeddedGateway();
  const reset = await deps.reads.get(`factors-reset:${session.userId}`, () => lastFactorsReset(store.db, session.userId));
  return reset !== null && reset.at >= session.startedAt && reset.byAccessKeyId !== sessionAccessKeyId(session);
}

/** Once per request (layout and page share it). */
export const resolveConsoleSession = cache(async (): Promise<SessionState> => sessionStateFromCookies(await cookies()));

/** The signed-in user's session: a valid, unexpired vault entry (its last_seen_at moves on). */
export async function getConsoleSession(): Promise<ConsoleSession | null> {
  const state = await resolveConsoleSession();
  return state.status === "active" ? state.session : null;
}

export function signInPath(state: SessionState["status"]): string {
  if (state === "mfa") return MFA_STEP_PATH;
  const reason: SignInReason = state === "revoked" ? "revoked" : state === "expired" ? "expired" : "required";
  return `/sign-in?reason=${reason}`;
}

/** The session, or a redirect to sign-in that says why. */
export async function requireConsoleSession(): Promise<ConsoleSession> {
  const state = await resolveConsoleSession();
  if (state.status === "active") return state.session;
  redirect(signInPath(state.status));
}
