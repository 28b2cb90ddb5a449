import "server-only";
import { vaultKey, vaultLimits, signInLimit, gatewayIsEmbedded } from "@/lib/console/config";
import { clockSkewSeconds, gatewayFetch } from "@/lib/console/gateway-client";
import { pruneSignInFailures, rateLimitKey, retryMinutes, returnAttempt, takeAttempt } from "@/lib/console/rate-limit";
import { consoleDb } from "@/lib/console/store/client";
import { createVaultSession, type Credentials } from "@/lib/console/vault";
import { secondFactorOwed } from "./mfa";
import type { ConsoleSession } from "./session";
import { embeddedGateway } from "@/lib/gateway/runtime";
import { findActiveApiKey } from "@/lib/gateway/store/queries/api-keys";
import { ssoRequiredAnywhere } from "@/lib/gateway/store/queries/people";
import { rateLimitedCode, SIGN_IN_ERROR } from "@/lib/contract/sign-in-messages";
import { operationPath } from "@/lib/contract/operations";

/** A refused sign-in; `code` is what the sign-in page turns into words (lib/contract/sign-in-messages). */
export class SignInError extends Error {
  constructor(readonly code: string) {
    super(code);
    this.name = "SignInError";
  }
}

/** An organization of the key as GET /v1/organizations/entities lists it: the methods it requires, when the answer says. */
export interface KeyOrganization {
  id: string;
  mfaMethods?: unknown[];
}

export type KeyCheck = { ok: true; organizations: KeyOrganization[] } | { ok: false; reason: "invalid" | "unavailable" };

const RAW_BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Asks the gateway whether the pair works: a signed GET /v1/organizations/entities. */
export async function checkApiKey(credentials: Credentials, clientIp?: string): Promise<KeyCheck> {
  if (!RAW_BASE64URL.test(credentials.secretKey) || credentials.secretKey.length % 4 === 1) return { ok: false, reason: "invalid" };
  let response: Response;
  try {
    response = await gatewayFetch(credentials, "GET", operationPath("getOrganizations"), { clientIp });
  } catch {
    return { ok: false, reason: "unavailable" };
  }
  if (response.ok) {
    const organizations = await organizationsOf(response);
    return organizations ? { ok: true, organizations } : { ok: false, reason: "unavailable" };
  }
  await response.body?.cancel();
  // Refused while the clocks disagree: nothing was checked of the key (clockSkewSeconds logs it for the operator).
  if ((response.status === 401 || response.status === 403) && clockSkewSeconds(response) !== null) return { ok: false, reason: "unavailable" };
  if (response.status === 401 || response.status === 403) return { ok: false, reason: "invalid" };
  return { ok: false, reason: "unavailable" };
}

/** The organizations of an answer of GET /v1/organizations/entities; null when it is not one. */
async function organizationsOf(response: Response): Promise<KeyOrganization[] | null> {
  try {
    const body = (await response.json()) as { items?: unknown };
    if (!Array.isArray(body.items)) return null;
    return body.items.flatMap((o: unknown) => {
      const item = o as { id?: unknown; mfa_methods?: unknown } | null;
      if (!item || typeof item !== "object" || typeof item.id !== "string") return [];
      return [{ id: item.id, ...(Array.isArray(item.mfa_methods) ? { mfaMethods: item.mfa_methods as unknown[] } : {}) }];
    });
  } catch {
    return null;
  }
}

/**
 * Whether an organization of the key requires a second factor, for a console on a remote gateway. Second factors live
 * in the gateway's store, which such a console cannot reach: a key of such an organization opens no session here,
 * rather than one that skips what the organization requires. The organization list says which methods each requires;
 * where it does not, GET …/mfa (any member may read it) is asked, and no answer there is the gateway's unavailability.
 */
async function mfaRequiredRemotely(credentials: Credentials, organizations: KeyOrganization[], clientIp: string): Promise<boolean> {
  const required = await Promise.all(
    organizations.map(async (org) => {
      if (org.mfaMethods) return org.mfaMethods.length > 0;
      let response: Response;
      try {
        response = await gatewayFetch(credentials, "GET", operationPath("OrganizationsMFAService_GetOrganizationMFA", { organization_id: org.id }), { clientIp });
      } catch {
        throw new SignInError(SIGN_IN_ERROR.gatewayUnavailable);
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new SignInError(SIGN_IN_ERROR.gatewayUnavailable);
      }
      const body = (await response.json().catch(() => ({}))) as { mfa_methods?: unknown };
      // An answer that does not say counts as requiring one.
      return !Array.isArray(body.mfa_methods) || body.mfa_methods.length > 0;
    }),
  );
  return required.some(Boolean);
}

/**
 * Who a verified key belongs to, for display. The interface has no "who am I"
 * operation, so this reads the embedded gateway's own store; a remote gateway
 * leaves it unknown.
 */
export async function keyOwner(accessKeyId: string): Promise<{ userId: string; email: string } | null> {
  if (!gatewayIsEmbedded()) return null;
  const { store } = await embeddedGateway();
  const row = await findActiveApiKey(store.db, accessKeyId);
  return row ? { userId: row.userId, email: row.email } : null;
}

export const UNKNOWN_OWNER = { userId: "", email: "API key user" } as const;

/**
 * Whether an admin requires this person to sign in through SSO (People → Require SSO): then an API
 * key does not open a console session. Known only to an embedded gateway's store.
 */
async function mustUseSso(userId: string): Promise<boolean> {
  if (!userId || !gatewayIsEmbedded()) return false;
  const { store } = await embeddedGateway();
  return ssoRequiredAnywhere(store.db, userId);
}

export interface SignInInput {
  credentials: Credentials;
  clientIp: string;
  /** Count failures from this client and refuse it after too many. */
  rateLimited: boolean;
  /** Known already (demo users); otherwise looked up. */
  identity?: { userId: string; email: string };
}

/**
 * Verifies the key with the gateway and opens a vault session; throws SignInError. Where an organization
 * of the person requires MFA, the session owes a second factor before anything answers it.
 */
export async function signInWithKey(input: SignInInput): Promise<ConsoleSession> {
  const db = await consoleDb();
  const limit = signInLimit();
  let attemptId: number | undefined;
  const bucket = rateLimitKey(input.clientIp);
  if (input.rateLimited) {
    // Counted before the key is checked, so that sign-ins sent together each count.
    const gate = await takeAttempt(db, bucket, limit);
    if (!gate.allowed) throw new SignInError(rateLimitedCode(retryMinutes(gate.retryAfterMs)));
    attemptId = gate.attemptId;
  }
  const check = await checkApiKey(input.credentials, input.clientIp);
  if (!check.ok) {
    if (check.reason === "unavailable") {
      // Nothing was checked: no attempt of the client's.
      if (attemptId !== undefined) await returnAttempt(db, attemptId);
      throw new SignInError(SIGN_IN_ERROR.gatewayUnavailable);
    }
    if (input.rateLimited) await pruneSignInFailures(db, bucket, limit);
    throw new SignInError(SIGN_IN_ERROR.invalidKey);
  }
  // A valid key gives back its own attempt and nothing more: it says nothing of the keys that failed
  // from the same client (with a key of their own, a guesser could otherwise wipe the count at will).
  if (attemptId !== undefined) await returnAttempt(db, attemptId);
  const identity = input.identity ?? (await keyOwner(input.credentials.accessKeyId)) ?? UNKNOWN_OWNER;
  if (await mustUseSso(identity.userId)) throw new SignInError(SIGN_IN_ERROR.ssoRequired);
  if (!gatewayIsEmbedded() && (await mfaRequiredRemotely(input.credentials, check.organizations, input.clientIp))) throw new SignInError(SIGN_IN_ERROR.mfaUnavailable);
  const mfaPending = await secondFactorOwed(identity.userId);
  const sessionId = await createVaultSession(db, vaultKey(), { ...identity, ...input.credentials, mfaPending }, vaultLimits());
  return { sessionId, ...identity, mfaPending, factors: ["api_key"] };
}
