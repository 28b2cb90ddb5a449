import { randomUUID } from "node:crypto";
import { and, asc, eq, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import type { MfaMethod } from "@/lib/contract/constants";
import type { Database } from "../client";
import { memberships, organizationMfaMethods, organizations, userMfaFactors, userRecoveryCodes, users } from "../schema";

/**
 * A person's second factors and recovery codes (the console asks for them at sign-in), and what an
 * organization requires of its people. Secrets arrive here sealed or hashed: this layer stores them.
 */

export type FactorRow = typeof userMfaFactors.$inferSelect;

/** The factors a person can sign in with (confirmed), oldest first. */
export async function listFactors(db: Database, userId: string): Promise<FactorRow[]> {
  return db
    .select()
    .from(userMfaFactors)
    .where(and(eq(userMfaFactors.userId, userId), isNotNull(userMfaFactors.confirmedAt)))
    .orderBy(asc(userMfaFactors.createdAt), asc(userMfaFactors.id));
}

export async function findFactor(db: Database, userId: string, factorId: string): Promise<FactorRow | undefined> {
  const [row] = await db.select().from(userMfaFactors).where(and(eq(userMfaFactors.userId, userId), eq(userMfaFactors.id, factorId)));
  return row;
}

/** Starts an authenticator app's enrolment: a pending factor (a person's earlier pending one goes). */
export async function createPendingTotp(db: Database, userId: string, secretCiphertext: string, name: string, now = new Date()): Promise<string> {
  await db.delete(userMfaFactors).where(and(eq(userMfaFactors.userId, userId), eq(userMfaFactors.method, "totp"), isNull(userMfaFactors.confirmedAt)));
  const id = randomUUID();
  await db.insert(userMfaFactors).values({ id, userId, method: "totp", name, secretCiphertext, createdAt: now });
  return id;
}

/**
 * Records an accepted TOTP code's time step, and confirms a pending factor with it. Only a step later
 * than the last accepted one counts: false when another request used this step (or a later one) first.
 */
export async function acceptTotpStep(db: Database, factorId: string, timeStep: number, now = new Date()): Promise<boolean> {
  const rows = await db
    .update(userMfaFactors)
    .set({ lastTimeStep: timeStep, lastUsedAt: now, confirmedAt: sql`coalesce(${userMfaFactors.confirmedAt}, ${now.toISOString()}::timestamptz)` })
    .where(and(eq(userMfaFactors.id, factorId), or(isNull(userMfaFactors.lastTimeStep), lt(userMfaFactors.lastTimeStep, timeStep))))
    .returning({ id: userMfaFactors.id });
  return rows.length > 0;
}

export async function addWebauthnFactor(
  db: Database,
  input: { userId: string; name: string; credentialId: string; publicKey: string; signCount: number; transports: string[] },
  now = new Date(),
): Promise<FactorRow> {
  const [row] = await db
    .insert(userMfaFactors)
    .values({ id: randomUUID(), method: "webauthn", createdAt: now, confirmedAt: now, ...input })
    .returning();
  return row!;
}

/**
 * Records a passkey's answer and its signature counter; false when the counter stored meanwhile is as high or higher (an
 * answer checked at the same time as this one, with a later count, was recorded first), so the counter never goes back,
 * and an answer that would move it back is not taken: WebAuthn's sign of a cloned authenticator. An authenticator that
 * keeps no counter answers 0 every time.
 */
export async function recordWebauthnUse(db: Database, factorId: string, signCount: number, now = new Date()): Promise<boolean> {
  const rows = await db
    .update(userMfaFactors)
    .set({ signCount, lastUsedAt: now })
    .where(and(eq(userMfaFactors.id, factorId), signCount === 0 ? eq(userMfaFactors.signCount, 0) : lt(userMfaFactors.signCount, signCount)))
    .returning({ id: userMfaFactors.id });
  return rows.length > 0;
}

/** Removes one of a person's factors; false when it is not theirs. */
export async function deleteFactor(db: Database, userId: string, factorId: string): Promise<boolean> {
  const rows = await db.delete(userMfaFactors).where(and(eq(userMfaFactors.userId, userId), eq(userMfaFactors.id, factorId))).returning({ id: userMfaFactors.id });
  return rows.length > 0;
}

/**
 * A new set of recovery codes (their hashes) replaces the person's old ones, spent or not, in one
 * transaction holding the account's row: of two replacements at once one set stays, never both (the
 * second's delete would miss the codes the first inserted meanwhile).
 */
export async function replaceRecoveryCodes(db: Database, userId: string, codeHashes: string[], now = new Date()): Promise<void> {
  await db.transaction(async (raw) => {
    const tx = raw as unknown as Database;
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
    await tx.delete(userRecoveryCodes).where(eq(userRecoveryCodes.userId, userId));
    if (codeHashes.length > 0) await tx.insert(userRecoveryCodes).values(codeHashes.map((codeHash) => ({ userId, codeHash, createdAt: now })));
  });
}

/** Spends a recovery code: true once, for an unspent code of this person. */
export async function spendRecoveryCode(db: Database, userId: string, codeHash: string, now = new Date()): Promise<boolean> {
  const rows = await db
    .update(userRecoveryCodes)
    .set({ usedAt: now })
    .where(and(eq(userRecoveryCodes.userId, userId), eq(userRecoveryCodes.codeHash, codeHash), isNull(userRecoveryCodes.usedAt)))
    .returning({ userId: userRecoveryCodes.userId });
  return rows.length > 0;
}

/** Gives back a code spent at `spentAt` for a sign-in that did not happen; a code spent at another moment stays spent. */
export async function unspendRecoveryCode(db: Database, userId: string, codeHash: string, spentAt: Date): Promise<void> {
  await db
    .update(userRecoveryCodes)
    .set({ usedAt: null })
    .where(and(eq(userRecoveryCodes.userId, userId), eq(userRecoveryCodes.codeHash, codeHash), eq(userRecoveryCodes.usedAt, spentAt)));
}

export async function recoveryCodesLeft(db: Database, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(userRecoveryCodes)
    .where(and(eq(userRecoveryCodes.userId, userId), isNull(userRecoveryCodes.usedAt)));
  return row?.n ?? 0;
}

/** An admin's reset: every factor (pending ones included) and recovery code of the person goes. Returns how many factors went. */
export async function resetPersonMfa(db: Database, userId: string): Promise<number> {
  const gone = await db.delete(userMfaFactors).where(eq(userMfaFactors.userId, userId)).returning({ confirmedAt: userMfaFactors.confirmedAt });
  await db.delete(userRecoveryCodes).where(eq(userRecoveryCodes.userId, userId));
  return gone.filter((row) => row.confirmedAt !== null).length;
}

/**
 * Marks the account's factors reset now (the transaction's time), by the caller's key: the console ends every session
 * of the account begun before it that does not sign with that key (lib/console/session.ts).
 */
export async function markFactorsReset(db: Database, userId: string, byAccessKeyId: string): Promise<void> {
  await db.update(users).set({ factorsResetAt: sql`now()`, factorsResetByKey: byAccessKeyId }).where(eq(users.id, userId));
}

/** When the account's factors were last reset by an admin, and by which key; null if never. */
export async function lastFactorsReset(db: Database, userId: string): Promise<{ at: number; byAccessKeyId: string | null } | null> {
  const [row] = await db.select({ at: users.factorsResetAt, by: users.factorsResetByKey }).from(users).where(eq(users.id, userId));
  return row?.at ? { at: row.at.getTime(), byAccessKeyId: row.by } : null;
}

export interface Enrollment {
  /** Active people of the organization. */
  people: number;
  /** Of them, how many have each method, and any method. */
  totp: number;
  webauthn: number;
  any: number;
}

/** How many of the organization's active people have enrolled each method (before an admin requires one). */
export async function enrollmentOf(db: Database, organizationId: string): Promise<Enrollment> {
  // memberships.user_id written out: drizzle leaves a lone table's columns unqualified, which inside the
  // subquery would name f.user_id.
  const [row] = await db
    .select({
      people: sql<number>`count(*)::int`,
      totp: sql<number>`count(*) filter (where exists (select 1 from ${userMfaFactors} f where f.user_id = memberships.user_id and f.method = 'totp' and f.confirmed_at is not null))::int`,
      webauthn: sql<number>`count(*) filter (where exists (select 1 from ${userMfaFactors} f where f.user_id = memberships.user_id and f.method = 'webauthn' and f.confirmed_at is not null))::int`,
      any: sql<number>`count(*) filter (where exists (select 1 from ${userMfaFactors} f where f.user_id = memberships.user_id and f.confirmed_at is not null))::int`,
    })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.status, "active")));
  return row ?? { people: 0, totp: 0, webauthn: 0, any: 0 };
}

/** One organization's MFA requirement on a person. */
export interface MfaRequirement {
  organizationId: string;
  organizationName: string;
  /** Any one of these methods satisfies the organization. */
  methods: MfaMethod[];
  /** Until when a person with none of the methods may sign in without enrolling (null: no grace). */
  graceUntil: Date | null;
}

/** Every organization the person is an active member of that requires MFA. */
export async function mfaRequirementsOf(db: Database, userId: string): Promise<MfaRequirement[]> {
  const rows = await db
    .select({
      organizationId: organizations.id,
      organizationName: organizations.name,
      graceDays: organizations.mfaGraceDays,
      method: organizationMfaMethods.method,
      // From when MFA was first required, however its methods changed since; a method's own time where that is not kept.
      since: sql<Date>`coalesce(${organizations.mfaRequiredSince}, ${organizationMfaMethods.createdAt})`.mapWith(organizationMfaMethods.createdAt),
    })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .innerJoin(organizationMfaMethods, eq(organizationMfaMethods.organizationId, memberships.organizationId))
    .where(and(eq(memberships.userId, userId), eq(memberships.status, "active")))
    .orderBy(asc(organizations.name), asc(organizationMfaMethods.method));
  const byOrg = new Map<string, MfaRequirement & { since: Date; graceDays: number }>();
  for (const row of rows) {
    const found = byOrg.get(row.organizationId);
    if (found) {
      found.methods.push(row.method as MfaMethod);
      if (row.since < found.since) found.since = row.since;
    } else {
      byOrg.set(row.organizationId, { ...row, methods: [row.method as MfaMethod], graceUntil: null });
    }
  }
  return [...byOrg.values()].map(({ organizationId, organizationName, methods, since, graceDays }) => ({
    organizationId,
    organizationName,
    methods,
    graceUntil: graceDays > 0 ? new Date(since.getTime() + graceDays * 86_400_000) : null,
  }));
}

export async function mfaGraceDays(db: Database, organizationId: string): Promise<number> {
  const [row] = await db.select({ days: organizations.mfaGraceDays }).from(organizations).where(eq(organizations.id, organizationId));
  return row?.days ?? 0;
}

export async function setMfaGraceDays(db: Database, organizationId: string, days: number): Promise<void> {
  await db.update(organizations).set({ mfaGraceDays: days, updatedAt: new Date() }).where(eq(organizations.id, organizationId));
}
