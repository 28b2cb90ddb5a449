import { desc, isNotNull, sql } from "drizzle-orm";
import type { Database } from "../client";
import { apiKeys, masterKeyCheck, ssoProviders, userMfaFactors } from "../schema";

/** The check value of the key the store's secrets are sealed with; null before the first start that wrote one. */
export async function readMasterKeyCheck(db: Database): Promise<string | null> {
  const [row] = await db.select({ value: masterKeyCheck.checkValue }).from(masterKeyCheck).limit(1);
  return row?.value ?? null;
}

/** Writes the check value unless one is there (another replica's, written first): the value kept is returned. */
export async function recordMasterKeyCheck(db: Database, value: string): Promise<string> {
  await db.insert(masterKeyCheck).values({ id: 1, checkValue: value }).onConflictDoNothing();
  return (await readMasterKeyCheck(db)) ?? value;
}

/**
 * Up to `limit` secrets sealed in the store, the live ones first and the newest of each kind first: API keys', SSO
 * clients', TOTP factors'. Several, so that one sealed under a stray key (a key made from a machine without the
 * deployment's STRATUS_MASTER_KEY, then revoked) cannot decide alone.
 */
export async function sealedSecrets(db: Database, limit = 24): Promise<string[]> {
  const keys = await db
    .select({ sealed: apiKeys.secretCiphertext })
    .from(apiKeys)
    .orderBy(sql`${apiKeys.revokedAt} is not null`, desc(apiKeys.createdAt), desc(apiKeys.id))
    .limit(limit);
  const providers = await db
    .select({ sealed: sql<string>`${ssoProviders.clientSecretCiphertext}` })
    .from(ssoProviders)
    .where(isNotNull(ssoProviders.clientSecretCiphertext))
    .orderBy(desc(ssoProviders.createdAt), desc(ssoProviders.id))
    .limit(limit);
  const factors = await db
    .select({ sealed: sql<string>`${userMfaFactors.secretCiphertext}` })
    .from(userMfaFactors)
    .where(isNotNull(userMfaFactors.secretCiphertext))
    .orderBy(desc(userMfaFactors.createdAt), desc(userMfaFactors.id))
    .limit(limit);
  return [...keys, ...providers, ...factors].map((row) => row.sealed).slice(0, limit);
}
