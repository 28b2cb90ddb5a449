import { and, eq, isNull } from "drizzle-orm";
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
