import { isNotNull, sql } from "drizzle-orm";
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

/** One secret sealed in the store (an API key's, an SSO client's, a TOTP factor's), or null when none is. */
export async function anySealedSecret(db: Database): Promise<string | null> {
  const [key] = await db.select({ sealed: apiKeys.secretCiphertext }).from(apiKeys).limit(1);
  if (key) return key.sealed;
  const [provider] = await db
    .select({ sealed: sql<string>`${ssoProviders.clientSecretCiphertext}` })
    .from(ssoProviders)
    .where(isNotNull(ssoProviders.clientSecretCiphertext))
    .limit(1);
  if (provider) return provider.sealed;
  const [factor] = await db
    .select({ sealed: sql<string>`${userMfaFactors.secretCiphertext}` })
    .from(userMfaFactors)
    .where(isNotNull(userMfaFactors.secretCiphertext))
    .limit(1);
  return factor?.sealed ?? null;
}
