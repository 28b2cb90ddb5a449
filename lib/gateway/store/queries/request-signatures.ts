import { and, eq, lt, or, sql } from "drizzle-orm";
import type { Database } from "../client";
import { requestSignatures } from "../schema";

/** A mutating call's signature as the replay guard keeps it: its record's key, the body's digest, the end of its window. */
export interface SignatureRecord {
  signature: string;
  bodyDigest: string;
  expiresAt: Date;
}

/** Why a claim was refused. */
export type ClaimRefusal = "spent" | "other_body" | "attempts";

/**
 * Claims a signature for a call about to run; null when taken, else why it may not run: a change
 * was made under it already or an answer not to be retried was given (spent), it was sent before
 * with another body, or it was sent `maxAttempts` times. A record whose window has passed is taken
 * over (rows are purged lazily); an unspent claim with the same body is taken again (a retry of a
 * call that changed nothing).
 */
export async function claimSignature(db: Database, record: SignatureRecord, now: Date, maxAttempts: number): Promise<ClaimRefusal | null> {
  const claimed = await db
    .insert(requestSignatures)
    .values({ ...record, spent: false, attempts: 1 })
    .onConflictDoUpdate({
      target: requestSignatures.signature,
      set: {
        expiresAt: record.expiresAt,
        bodyDigest: record.bodyDigest,
        spent: false,
        attempts: sql`CASE WHEN ${requestSignatures.expiresAt} < ${now} THEN 1 ELSE ${requestSignatures.attempts} + 1 END`,
      },
      setWhere: or(
        lt(requestSignatures.expiresAt, now),
        and(eq(requestSignatures.spent, false), eq(requestSignatures.bodyDigest, record.bodyDigest), lt(requestSignatures.attempts, maxAttempts)),
      ),
    })
    .returning({ signature: requestSignatures.signature });
  if (claimed.length > 0) return null;
  // Refused: read why (a refusal is rare, so this costs nothing on the way of a call taken).
  const [held] = await db
    .select({ spent: requestSignatures.spent, bodyDigest: requestSignatures.bodyDigest })
    .from(requestSignatures)
    .where(eq(requestSignatures.signature, record.signature));
  if (!held) return "spent";
  // Another body is said as such even once its call was answered: this call (not a resend of that one) was not made,
  // and its sender may sign it anew (lib/console/gateway-client.ts does, for a signature another replica made alike).
  if (held.bodyDigest !== null && held.bodyDigest !== record.bodyDigest) return "other_body";
  return held.spent ? "spent" : "attempts";
}

/**
 * Spends a signature, in the transaction of the change made under it: false when a change was made
 * under it already (a concurrent retry's transaction waits for the first one's row lock, and then
 * sees it spent) or it was claimed with another body. A claim purged meanwhile is written anew.
 */
export async function spendSignature(db: Database, record: SignatureRecord): Promise<boolean> {
  const spent = await db
    .insert(requestSignatures)
    .values({ ...record, spent: true })
    .onConflictDoUpdate({
      target: requestSignatures.signature,
      set: { spent: true },
      setWhere: and(eq(requestSignatures.spent, false), eq(requestSignatures.bodyDigest, record.bodyDigest)),
    })
    .returning({ signature: requestSignatures.signature });
  return spent.length > 0;
}

export async function purgeSignatures(db: Database, now: Date): Promise<void> {
  await db.delete(requestSignatures).where(lt(requestSignatures.expiresAt, now));
}

export async function countSignatures(db: Database): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(requestSignatures);
  return Number(row?.n ?? 0);
}
