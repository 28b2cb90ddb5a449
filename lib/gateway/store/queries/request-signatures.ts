import { and, eq, lt, or, sql } from "drizzle-orm";
import type { Database } from "../client";
import { requestSignatures } from "../schema";

/** A mutating call's signature as the replay guard keeps it: its record's key, the body's digest, the end of its window. */
export interface SignatureRecord {
  signature: string;
  bodyDigest: string;
  expiresAt: Date;
}

/**
 * Claims a signature for a call about to run; false when it may not run: a change was made under
 * it already (spent), or it was sent before with another body. A record whose window has passed is
 * taken over (rows are purged lazily); an unspent claim with the same body is taken again (a retry
 * of a call that changed nothing).
 */
export async function claimSignature(db: Database, record: SignatureRecord, now: Date): Promise<boolean> {
  const claimed = await db
    .insert(requestSignatures)
    .values({ ...record, spent: false })
    .onConflictDoUpdate({
      target: requestSignatures.signature,
      set: { expiresAt: record.expiresAt, bodyDigest: record.bodyDigest, spent: false },
      setWhere: or(
        lt(requestSignatures.expiresAt, now),
        and(eq(requestSignatures.spent, false), eq(requestSignatures.bodyDigest, record.bodyDigest)),
      ),
    })
    .returning({ signature: requestSignatures.signature });
  return claimed.length > 0;
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
