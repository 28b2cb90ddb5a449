import "server-only";
import { createHash, randomInt } from "node:crypto";
import { generateSecret, generateURI, verify as verifyTotp } from "otplib";
import QRCode from "qrcode";
import type { MfaMethod } from "@/lib/contract/constants";
import { FACTORS_MANAGED_ELSEWHERE } from "@/lib/contract/sign-in-messages";
import { decrypt, encrypt } from "@/lib/gateway/crypto";
import { embeddedGateway } from "@/lib/gateway/runtime";
import type { Database } from "@/lib/gateway/store/client";
import {
  acceptTotpStep,
  createPendingTotp,
  deleteFactor,
  findFactor,
  listFactors,
  mfaRequirementsOf,
  recoveryCodesLeft,
  replaceRecoveryCodes,
  spendRecoveryCode,
  unspendRecoveryCode,
  type FactorRow,
  type MfaRequirement,
} from "@/lib/gateway/store/queries/mfa-factors";
import { accountDeciders, decidesAlone } from "@/lib/gateway/store/queries/access";
import { findSsoProviderById } from "@/lib/gateway/store/queries/sso";
import { gatewayIsEmbedded, vaultKey } from "./config";
import { clearSignInFailures, pruneSignInFailures, retryMinutes, takeAttempt, type SignInLimit } from "./rate-limit";
import type { ConsoleSession } from "./session";
import { consoleDb } from "./store/client";
import { logConsoleFailure } from "./failure";
import { endOtherSessionsOf, promoteVaultSession, recordSessionFactor } from "./vault";

/**
 * Second factors for console sign-in. When an organization the person is an active member of
 * requires MFA (its `mfa` methods), a new session owes a second factor: the vault marks it pending
 * and nothing but the MFA step answers it (lib/console/session.ts). A session satisfies an
 * organization with a factor of one of its methods; a recovery code satisfies every organization.
 * Factors live in the embedded gateway's store (user_mfa_factors), secrets sealed under its master key.
 *
 * Libraries: otplib (TOTP, RFC 6238), qrcode (the enrolment QR code). Passkeys and security keys
 * (WebAuthn) are in mfa-passkeys.ts, built on the steps exported here for it.
 */

export const RECOVERY_CODE_COUNT = 10;
/** Wrong codes per person before the MFA step makes them wait (every console replica counts the same). */
export const MFA_ATTEMPT_LIMIT: SignInLimit = { maxFailures: 5, windowMs: 15 * 60_000 };
/** The name authenticator apps and passkey prompts show. */
export const ISSUER = "Stratus";
/** A TOTP code of the previous or next 30-second step counts too (clock drift). */
const TOTP_TOLERANCE_SECONDS = 30;
/** The TOTP period (otplib's default), stated in the enrolment's URI and used by every check. */
const TOTP_PERIOD_SECONDS = 30;

export type SecondFactor = MfaMethod | "recovery_code" | "grace";
/** The factors a session can hold that prove the person has a second factor ("grace" proves nothing). */
const SECOND_FACTORS: ReadonlySet<string> = new Set<SecondFactor>(["totp", "webauthn", "recovery_code"]);

/** A refused MFA step; the message is for the person. */
export class MfaError extends Error {
  constructor(
    message: string,
    readonly field: "code" | "credential" | "name" | "session" | "confirm" = "code",
  ) {
    super(message);
    this.name = "MfaError";
  }
}

/** The embedded gateway's store, where factors live, and the key their secrets are sealed under. */
export async function factorStore(): Promise<{ db: Database; masterKey: Buffer }> {
  if (!gatewayIsEmbedded()) throw new MfaError("Second factors need the embedded gateway", "session");
  const gateway = await embeddedGateway();
  return { db: gateway.store.db, masterKey: gateway.deps.masterKey };
}

/** Whether a session of this person, opened now, owes a second factor (a remote gateway's people never do: their factors are unknown here). */
export async function secondFactorOwed(userId: string): Promise<boolean> {
  if (!userId || !gatewayIsEmbedded()) return false;
  return (await mfaRequirementsOf((await factorStore()).db, userId)).length > 0;
}

/** The organizations a session's factors do not yet satisfy. */
export function unsatisfied(requirements: MfaRequirement[], factors: readonly string[]): MfaRequirement[] {
  // A recovery code stands for any factor; "grace" is given only while every organization asking grants it.
  if (factors.includes("recovery_code") || factors.includes("grace")) return [];
  return requirements.filter((r) => !r.methods.some((m) => factors.includes(m)));
}

export interface MfaStepState {
  /** The organizations asking, and whether this session has satisfied each. */
  organizations: Array<{ name: string; methods: MfaMethod[]; satisfied: boolean; graceUntil: string | null }>;
  /** Methods the person can answer with now (enrolled, and asked for by an unsatisfied organization). */
  answer: MfaMethod[];
  /** Methods to enrol: an unsatisfied organization asks for them and the person has none of its methods. */
  enrol: MfaMethod[];
  /**
   * The person must answer with a second factor they already have (any of theirs, or a recovery code)
   * before this session may enrol one: otherwise whoever holds the first factor alone could add their
   * own authenticator and pass. `answer` then lists every method the person has.
   */
  proveFirst: boolean;
  /** Until when enrolment may wait (every unsatisfied organization still grants grace); null when it may not. */
  postponeUntil: string | null;
  recoveryCodesLeft: number;
  /**
   * A factor must be enrolled, but not through this session: it was signed in by the SSO of an
   * organization that does not decide for the account (factorsManagedElsewhere). A factor is the
   * account's, so one planted here would answer for the account's home as well.
   */
  enrolElsewhere: boolean;
}

/** What the MFA step of sign-in shows this session. */
export async function mfaStepState(session: ConsoleSession, now = new Date()): Promise<MfaStepState> {
  const { db } = await factorStore();
  const requirements = await mfaRequirementsOf(db, session.userId);
  const open = unsatisfied(requirements, session.factors);
  const enrolled = new Set((await listFactors(db, session.userId)).map((f) => f.method as MfaMethod));
  const answer = new Set<MfaMethod>();
  const enrol = new Set<MfaMethod>();
  let postpone: Date | null = open.length > 0 ? new Date(8.64e15) : null;
  for (const r of open) {
    const usable = r.methods.filter((m) => enrolled.has(m));
    for (const m of usable) answer.add(m);
    if (usable.length === 0) for (const m of r.methods) enrol.add(m);
    // Grace is for enrolling: someone who has a method of the organization answers with it.
    if (usable.length > 0 || !r.graceUntil || r.graceUntil <= now) postpone = null;
    else if (postpone && r.graceUntil < postpone) postpone = r.graceUntil;
  }
  const enrolElsewhere = enrol.size > 0 && (await factorsManagedElsewhere(session));
  if (enrolElsewhere) enrol.clear();
  const codesLeft = await recoveryCodesLeft(db, session.userId);
  const proveFirst = enrol.size > 0 && !session.factors.some((f) => SECOND_FACTORS.has(f)) && (enrolled.size > 0 || codesLeft > 0);
  if (proveFirst) {
    for (const m of enrolled) answer.add(m);
    // Nor does enrolment wait on the first factor alone: a "grace" session is a whole one, free to add
    // its own authenticator and take new recovery codes. The person proves it is them, then waits.
    postpone = null;
  }
  return {
    organizations: requirements.map((r) => ({
      name: r.organizationName,
      methods: r.methods,
      satisfied: !open.includes(r),
      graceUntil: r.graceUntil?.toISOString() ?? null,
    })),
    answer: [...answer].sort(),
    enrol: [...enrol].sort(),
    proveFirst,
    postponeUntil: postpone?.toISOString() ?? null,
    recoveryCodesLeft: codesLeft,
    enrolElsewhere,
  };
}

/** A factor given: whether the session's factors now satisfy every organization, and the id it moved to. */
export interface Granted {
  satisfied: boolean;
  /**
   * The session's new id, for the cookie of the response to the request that gave the factor (and no
   * other): absent when the session owed nothing, and so did not move.
   */
  sessionId?: string;
}

/**
 * Records a second factor on the session (recordSessionFactor). A session owing its step moves to a
 * new id as it does, and is satisfied once its factors satisfy every organization; it still owes the
 * step until finishSignIn moves it again, owing nothing. Of two answers sent at once with the same
 * cookie, the second finds the session moved and is refused: the person answers again on the step the
 * first one's cookie shows. A whole session keeps its id: the factor confirms it is the person, before
 * they change their factors (mayManageFactors).
 */
export async function grant(session: ConsoleSession, factor: string, endsBy?: Date): Promise<Granted> {
  const { db } = await factorStore();
  // Read before the move: once it is made, nothing may fail before the caller sets the new id's cookie.
  const requirements = session.mfaPending ? await mfaRequirementsOf(db, session.userId) : [];
  const recorded = await recordSessionFactor(await consoleDb(), vaultKey(), session.sessionId, factor, session.mfaPending, endsBy);
  if (!recorded) throw new MfaError("This sign-in has moved on or ended: reload the page, or sign in again", "session");
  if (!session.mfaPending) return { satisfied: true };
  return { satisfied: unsatisfied(requirements, recorded.factors).length === 0, sessionId: recorded.sessionId };
}

/**
 * Ends the MFA step of a session whose factors satisfy every organization asking now (all of them,
 * when an organization stopped asking while it waited): the session goes on under a new id, owing
 * nothing (promoteVaultSession), and the id is returned for the new cookie. Null while a factor is
 * still owed, or when the session owes none or has ended.
 */
export async function finishSignIn(session: ConsoleSession): Promise<string | null> {
  if (!session.mfaPending) return null;
  const { db } = await factorStore();
  if (unsatisfied(await mfaRequirementsOf(db, session.userId), session.factors).length > 0) return null;
  return promoteVaultSession(await consoleDb(), vaultKey(), session.sessionId);
}

/**
 * Takes one of the person's attempts before their answer is checked (answers sent together each take
 * one); throws once they have had too many. A right answer clears them, a wrong one keeps its attempt.
 */
export async function gate(userId: string): Promise<void> {
  const allowed = await takeAttempt(await consoleDb(), `mfa:${userId}`, MFA_ATTEMPT_LIMIT);
  if (!allowed.allowed) {
    const minutes = retryMinutes(allowed.retryAfterMs);
    throw new MfaError(`Too many wrong codes; try again in ${minutes} ${minutes === 1 ? "minute" : "minutes"}`);
  }
}

/** Refuses a wrong answer: its attempt stays counted. */
export async function refuse(userId: string, message: string): Promise<never> {
  await pruneSignInFailures(await consoleDb(), `mfa:${userId}`, MFA_ATTEMPT_LIMIT);
  throw new MfaError(message);
}

const SIX_DIGITS = /^\d{6}$/;

function normalizeCode(code: string): string {
  return code.replace(/\s+/g, "");
}

/** A TOTP code checked against one factor: the accepted time step, or null. Never the step of an earlier success. */
async function totpStep(factor: FactorRow, masterKey: Buffer, code: string, now: Date): Promise<number | null> {
  if (!factor.secretCiphertext) return null;
  const epoch = Math.floor(now.getTime() / 1000);
  // No step after the last one accepted is within reach of this clock (a replica's behind the one that accepted it):
  // no code can be taken, which otplib says by throwing.
  if (factor.lastTimeStep !== null && factor.lastTimeStep >= Math.floor((epoch + TOTP_TOLERANCE_SECONDS) / TOTP_PERIOD_SECONDS)) return null;
  const result = await verifyTotp({
    secret: decrypt(masterKey, factor.secretCiphertext),
    token: code,
    epoch,
    period: TOTP_PERIOD_SECONDS,
    epochTolerance: TOTP_TOLERANCE_SECONDS,
    ...(factor.lastTimeStep !== null ? { afterTimeStep: factor.lastTimeStep } : {}),
  });
  return result.valid && "timeStep" in result ? result.timeStep : null;
}

/** The second factor from an authenticator app. */
export async function answerWithTotp(session: ConsoleSession, input: string, now = new Date()): Promise<Granted> {
  const code = normalizeCode(input);
  if (!SIX_DIGITS.test(code)) throw new MfaError("Enter the 6-digit code from your authenticator app");
  await gate(session.userId);
  const { db, masterKey } = await factorStore();
  for (const factor of (await listFactors(db, session.userId)).filter((f) => f.method === "totp")) {
    const step = await totpStep(factor, masterKey, code, now);
    // Two requests with one code: only the first records its step.
    if (step !== null && (await acceptTotpStep(db, factor.id, step, now))) {
      await clearSignInFailures(await consoleDb(), `mfa:${session.userId}`);
      return grant(session, "totp");
    }
  }
  return refuse(session.userId, "That code is not valid (or was already used); wait for the next one and try again");
}

export function hashRecoveryCode(userId: string, code: string): string {
  return createHash("sha256").update(`${userId}:${code}`).digest("hex");
}

/** "ABCDE-FGHIJ" as typed: case, spaces and dashes do not matter. */
function normalizeRecoveryCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]+/g, "");
}

const RECOVERY_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/**
 * Whether this session may not change the account's second factors. A session an SSO provider
 * signed in acts in the provider's organization only (its key is scoped to it), while the factors
 * serve every organization of the account: such a session changes them only where that organization
 * decides for the account (its home, or the only organization it belongs to; accountDeciders).
 * Otherwise an organization that added an existing account could, through its own identity provider,
 * plant a factor (or recovery codes) the others then accept, or remove the ones they rely on. The
 * enrolment the MFA step asks for to finish a sign-in stays open (mayEnrol), so nobody is locked out.
 */
export async function factorsManagedElsewhere(session: ConsoleSession): Promise<boolean> {
  if (!session.ssoProviderId) return false;
  const { db } = await factorStore();
  const provider = await findSsoProviderById(db, session.ssoProviderId);
  if (!provider) return true;
  return !decidesAlone(await accountDeciders(db, session.userId), provider.organizationId);
}

/**
 * Whether this session must confirm it is the person before changing their factors: they have a
 * factor or recovery codes, and the session has given none of them (it was signed in where no
 * organization asked for one). Otherwise whoever holds the first factor alone could add their own
 * authenticator, take new recovery codes or remove the person's, and pass every MFA step from then on.
 */
export async function mustConfirmItsYou(session: ConsoleSession): Promise<boolean> {
  if (gaveSecondFactor(session)) return false;
  const { db } = await factorStore();
  return (await listFactors(db, session.userId)).length > 0 || (await recoveryCodesLeft(db, session.userId)) > 0;
}

function gaveSecondFactor(session: ConsoleSession): boolean {
  return session.factors.some((f) => SECOND_FACTORS.has(f));
}

export const CONFIRM_ITS_YOU = "Confirm it's you with a second factor you already have first";

async function mayManageFactors(session: ConsoleSession): Promise<void> {
  if (await factorsManagedElsewhere(session)) throw new MfaError(FACTORS_MANAGED_ELSEWHERE, "session");
  if (await mustConfirmItsYou(session)) throw new MfaError(CONFIRM_ITS_YOU, "confirm");
}

/**
 * New recovery codes asked for on the account's page (they replace the old ones), for a person with a
 * factor they stand in for: codes alone would be a factor that renews itself. As a removal of a factor does,
 * it ends every other session of the person: a session that got in with a phished code could have taken a
 * set of its own, each code a sign-in; the person's new set voids it, and the session that took it ends.
 */
export async function regenerateRecoveryCodes(session: ConsoleSession): Promise<string[]> {
  if (await factorsManagedElsewhere(session)) throw new MfaError(FACTORS_MANAGED_ELSEWHERE, "session");
  // mayManageFactors's confirmation, with the person's factors listed once: they have one here.
  if ((await listFactors((await factorStore()).db, session.userId)).length === 0) throw new MfaError("Set up an authenticator app or a passkey first: recovery codes stand in for one", "session");
  if (!gaveSecondFactor(session)) throw new MfaError(CONFIRM_ITS_YOU, "confirm");
  // The others end first, as in removeOwnFactor: a failure between the two leaves no session that outlives the change.
  await endOtherSessionsOf(await consoleDb(), session.userId, session.sessionId);
  return newRecoveryCodes(session.userId);
}

/** Ten new one-time codes replace the person's old ones; returned once, kept only as hashes. */
export async function newRecoveryCodes(userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join("");
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
  await replaceRecoveryCodes((await factorStore()).db, userId, codes.map((c) => hashRecoveryCode(userId, normalizeRecoveryCode(c))));
  return codes;
}

/** A recovery code in place of the second factor: spent once, it satisfies every organization. */
export async function answerWithRecoveryCode(session: ConsoleSession, input: string, now = new Date()): Promise<Granted & { left: number }> {
  const code = normalizeRecoveryCode(input);
  if (!/^[A-Z0-9]{10}$/.test(code)) throw new MfaError("Enter one of your recovery codes, like ABCDE-FGH23");
  await gate(session.userId);
  const { db } = await factorStore();
  const hash = hashRecoveryCode(session.userId, code);
  if (!(await spendRecoveryCode(db, session.userId, hash, now))) {
    return refuse(session.userId, "That recovery code is not valid or was already used");
  }
  try {
    await clearSignInFailures(await consoleDb(), `mfa:${session.userId}`);
    const left = await recoveryCodesLeft(db, session.userId);
    return { ...(await grant(session, "recovery_code")), left };
  } catch (error) {
    // Spent for a sign-in that did not happen (another answer moved the session first, or its move alone failed): the
    // code is the person's again. A store that is away altogether (a failover) refuses this too, and the code stays
    // spent: the person has the others, and new codes on the account page.
    await unspendRecoveryCode(db, session.userId, hash, now).catch(() => undefined);
    throw error;
  }
}

/** Enrolment may wait: every organization still asking grants grace, and the person has none of its methods. */
export async function postponeEnrolment(session: ConsoleSession, now = new Date()): Promise<Granted> {
  const state = await mfaStepState(session, now);
  if (state.proveFirst) throw new MfaError("Sign in with a second factor you already have first", "session");
  if (!state.postponeUntil) throw new MfaError("Your organization requires a second factor now", "session");
  // The session ends with the grace: signed in again, the person is asked to enrol.
  return grant(session, "grace", new Date(state.postponeUntil));
}

export interface TotpEnrolment {
  factorId: string;
  /** Base32, for typing into an app that cannot scan. */
  secret: string;
  /** The otpauth:// URI as a QR code (an SVG data: URL). */
  qrCode: string;
}

/**
 * A session still owing its second factor may enrol only a method it has to (an organization asking has
 * none of its methods enrolled), and only once it has given a factor the person already has, if they
 * have any (proveFirst): otherwise whoever holds the first factor alone could add their own
 * authenticator and pass. An active session may add any.
 */
export async function mayEnrol(session: ConsoleSession, method: MfaMethod): Promise<void> {
  if (!session.mfaPending) return mayManageFactors(session);
  const step = await mfaStepState(session);
  if (step.enrolElsewhere) throw new MfaError(FACTORS_MANAGED_ELSEWHERE, "session");
  if (step.proveFirst || !step.enrol.includes(method)) throw new MfaError("Sign in with a second factor you already have first", "session");
}

/** Starts adding an authenticator app: a pending factor, confirmed by its first code. */
export async function startTotpEnrolment(session: ConsoleSession): Promise<TotpEnrolment> {
  await mayEnrol(session, "totp");
  const { db, masterKey } = await factorStore();
  const secret = generateSecret();
  const factorId = await createPendingTotp(db, session.userId, encrypt(masterKey, secret), "Authenticator app");
  const uri = generateURI({ issuer: ISSUER, label: session.email, secret, period: TOTP_PERIOD_SECONDS });
  const svg = await QRCode.toString(uri, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
  return { factorId, secret, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}` };
}

export interface Enrolled extends Granted {
  /** New recovery codes, shown once: the person's first factor comes with them. */
  recoveryCodes: string[] | null;
}

/** After a factor is added: the person's first comes with recovery codes, and a session owing one counts it as given. */
export async function afterEnrolment(session: ConsoleSession, method: MfaMethod): Promise<Enrolled> {
  const { db } = await factorStore();
  const first = (await listFactors(db, session.userId)).length === 1 && (await recoveryCodesLeft(db, session.userId)) === 0;
  // Recovery codes satisfy every organization: the enrolment a sign-in through the SSO of an organization
  // that does not decide for the account needs comes without them (a key session, or one of the home's
  // SSO, gets them on the Sign-in security page).
  const withCodes = first && !(await factorsManagedElsewhere(session));
  // The session moves first: a factor given by another request at the same time (which moved it) leaves
  // this one refused, and the person's codes are not replaced by a set nobody is shown.
  const granted = await grant(session, method);
  // Moved: nothing may fail now before the caller sets the new id's cookie. Codes that could not be made are made
  // on the account's page later; the factor is enrolled and given either way.
  const recoveryCodes = withCodes ? await newRecoveryCodes(session.userId).catch((error: unknown) => (logConsoleFailure(error, "the first recovery codes", "mfa"), null)) : null;
  return { ...granted, recoveryCodes };
}

/** Confirms a pending authenticator app with a code from it; a session owing a factor counts it as given. */
export async function confirmTotpEnrolment(session: ConsoleSession, factorId: string, input: string, now = new Date()): Promise<Enrolled> {
  const code = normalizeCode(input);
  if (!SIX_DIGITS.test(code)) throw new MfaError("Enter the 6-digit code your authenticator app shows");
  await mayEnrol(session, "totp");
  const { db, masterKey } = await factorStore();
  const factor = await findFactor(db, session.userId, factorId);
  // A set-up no longer pending checks no code: it takes none of the person's attempts.
  if (!factor || factor.method !== "totp" || factor.confirmedAt) throw new MfaError("Start again: this set-up is no longer pending", "session");
  await gate(session.userId);
  const step = await totpStep(factor, masterKey, code, now);
  if (step === null || !(await acceptTotpStep(db, factor.id, step, now))) {
    return refuse(session.userId, "That code does not match; check the app's clock and enter the current code");
  }
  await clearSignInFailures(await consoleDb(), `mfa:${session.userId}`);
  return afterEnrolment(session, "totp");
}

export interface FactorSummary {
  id: string;
  method: MfaMethod;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/** The person's own second factors, for their account page (no secret). */
export async function ownFactors(userId: string): Promise<{ factors: FactorSummary[]; recoveryCodesLeft: number }> {
  const { db } = await factorStore();
  const factors = (await listFactors(db, userId)).map((f) => ({
    id: f.id,
    method: f.method as MfaMethod,
    name: f.name,
    createdAt: f.createdAt.toISOString(),
    lastUsedAt: f.lastUsedAt?.toISOString() ?? null,
  }));
  return { factors, recoveryCodesLeft: await recoveryCodesLeft(db, userId) };
}

/**
 * Removes one of the person's factors, and ends every other session of theirs: a session that confirmed it is
 * the person may have done it with a phished code, and planted the factor now removed. Whoever removes one they
 * do not know shuts every session out but their own; the others sign in again, with what is left.
 */
export async function removeOwnFactor(session: ConsoleSession, factorId: string): Promise<void> {
  await mayManageFactors(session);
  // A factor that is not the person's (a stale page, another tab removed it) changes nothing: no session ends for it.
  if (!(await findFactor((await factorStore()).db, session.userId, factorId))) throw new MfaError("No such factor", "credential");
  // The others end first: should the removal then fail, they signed in again for nothing; the other way
  // round, a failure between the two would leave them running, and a retry finds no factor to remove.
  await endOtherSessionsOf(await consoleDb(), session.userId, session.sessionId);
  if (!(await deleteFactor((await factorStore()).db, session.userId, factorId))) throw new MfaError("No such factor", "credential");
}
