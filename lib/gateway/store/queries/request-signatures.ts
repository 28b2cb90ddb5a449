import { lt, sql } from "drizzle-orm";
import type { Database } from "../client";
import { requestSignatures } from "../schema";

/**
 * Records a signature as used until `expiresAt`; false when it is on record already and its
 * window has not passed (a record whose window has passed is taken over: rows are purged lazily).
 */
export async function recordSignature(db: Database, signature: string, expiresAt: Date, now: Date): Promise<boolean> {
  const inserted = await db
    .insert(requestSignatures)
    .values({ signature, expiresAt })
    .onConflictDoUpdate({ target: requestSignatures.signature, set: { expiresAt }, setWhere: lt(requestSignatures.expiresAt, now) })
    .returning({ signature: requestSignatures.signature });
  return inserted.length > 0;
}

export async function purgeSignatures(db: Database, now: Date): Promise<void> {
  await db.delete(requestSignatures).where(lt(requestSignatures.expiresAt, now));
}

export async function countSignatures(db: Database): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(requestSignatures);
  return Number(row?.n ?? 0);
}
