import { and, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "../client";
import { apiKeys, users } from "../schema";

export interface ActiveApiKey {
  /** The key's secret, encrypted with the master key. */
  secretCiphertext: string;
  userId: string;
  email: string;
}

/** A key that is not revoked, with its owner; undefined for an unknown or revoked key. */
export async function findActiveApiKey(db: Database, accessKeyId: string): Promise<ActiveApiKey | undefined> {
  const [row] = await db
    .select({ secretCiphertext: apiKeys.secretCiphertext, userId: users.id, email: users.email })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.id, accessKeyId), isNull(apiKeys.revokedAt)));
  return row;
}

export async function insertApiKey(db: Database, params: { id: string; userId: string; name: string; secretCiphertext: string }): Promise<void> {
  await db.insert(apiKeys).values(params);
}

/** Keys with their owner's email, newest first; all of them, or one user's. */
export async function listApiKeysWithOwner(db: Database, params: { userId?: string }) {
  return db
    .select({ id: apiKeys.id, userId: apiKeys.userId, email: users.email, name: apiKeys.name, createdAt: apiKeys.createdAt, revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(params.userId ? eq(apiKeys.userId, params.userId) : undefined)
    .orderBy(desc(apiKeys.createdAt));
}

/** Marks a key revoked now; false when it is unknown or already revoked. */
export async function markApiKeyRevoked(db: Database, params: { accessKeyId: string }): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.id, params.accessKeyId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}
