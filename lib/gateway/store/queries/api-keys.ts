import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Database } from "../client";
import { inList } from "./long-lists";
import { apiKeys, registryTokens, roles, s3Keys, scimTokens, ssoProviders, users } from "../schema";
import { holdersOf, lockAccounts } from "./access";

export interface ActiveApiKey {
  /** The key's secret, encrypted with the master key. */
  secretCiphertext: string;
  userId: string;
  email: string;
  /** After this the key is refused; null never. */
  expiresAt: Date | null;
  /**
   * The one organization the key acts in; null for a key of the whole account. A key the console
   * minted for an SSO session acts only in the organization of the provider that signed the person
   * in: a provider vouches for people to its own organization, never to the others they belong to.
   */
  organizationId: string | null;
}

/**
 * A key that is not revoked, with its owner and expiry; undefined for an unknown or revoked key.
 * An expired key is found: its user compares expiresAt with the time of use (answers are cached).
 */
export async function findActiveApiKey(db: Database, accessKeyId: string): Promise<ActiveApiKey | undefined> {
  const [row] = await db
    .select({
      secretCiphertext: apiKeys.secretCiphertext,
      userId: users.id,
      email: users.email,
      expiresAt: apiKeys.expiresAt,
      organizationId: ssoProviders.organizationId,
      // A minted key whose provider is gone is no key (deleting a provider deletes its keys too).
      orphaned: sql<boolean>`${apiKeys.ssoProviderId} is not null and ${ssoProviders.id} is null`,
    })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .leftJoin(ssoProviders, eq(ssoProviders.id, apiKeys.ssoProviderId))
    .where(and(eq(apiKeys.id, accessKeyId), isNull(apiKeys.revokedAt)));
  if (!row || row.orphaned) return undefined;
  return { secretCiphertext: row.secretCiphertext, userId: row.userId, email: row.email, expiresAt: row.expiresAt, organizationId: row.organizationId };
}

export async function insertApiKey(
  db: Database,
  params: { id: string; userId: string; name: string; secretCiphertext: string; expiresAt?: Date | null; ssoProviderId?: string | null },
): Promise<void> {
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

/**
 * What acts for the organization on the person's behalf, ended when they leave it or are suspended there:
 * - the keys the console minted for sessions an SSO provider of this organization signed them in, deleted,
 *   so those sessions sign nothing more (the console ends each at its next request);
 * - the SCIM tokens they made, deleted: otherwise whoever kept a token's secret could provision themselves
 *   back, into the groups that grant its roles (the integration stays; an administrator makes a new token);
 * - their S3 keys in the organization, disabled (listed still, for an administrator to delete);
 * - their container registry tokens of the organization, deleted (a token is shown once and never listed).
 */
export async function endOrganizationCredentials(db: Database, orgId: string, userId: string): Promise<void> {
  const providers = db.select({ id: ssoProviders.id }).from(ssoProviders).where(eq(ssoProviders.organizationId, orgId));
  await db.delete(apiKeys).where(and(eq(apiKeys.userId, userId), inArray(apiKeys.ssoProviderId, providers)));
  const theirs = and(eq(scimTokens.organizationId, orgId), eq(scimTokens.userId, userId));
  // Looked for first: a write to the tokens' table, even one deleting nothing, empties every replica's cache of SCIM tokens.
  if ((await db.select({ id: scimTokens.id }).from(scimTokens).where(theirs).limit(1)).length > 0) await db.delete(scimTokens).where(theirs);
  await db
    .update(s3Keys)
    .set({ enabled: false })
    .where(and(eq(s3Keys.organizationId, orgId), eq(s3Keys.userId, userId), eq(s3Keys.enabled, true)));
  await db.delete(registryTokens).where(and(eq(registryTokens.organizationId, orgId), eq(registryTokens.userId, userId)));
}

/**
 * The SCIM tokens these people made in the organization, deleted where their maker no longer holds `scim.manage` there
 * (a role change took it: IAM, or a group of an identity provider). A token provisions with its maker's say over the
 * organization's people; making one needs the permission, and so does keeping one working.
 */
export async function endScimTokensOfThoseWithout(db: Database, orgId: string, removed: Array<{ userId: string; roleId: string }>): Promise<void> {
  if (removed.length === 0) return;
  // Only a binding whose role granted the permission can take it away: the people who lost one (few: most bindings a
  // group grants are of roles without it), not everyone whose bindings changed (a group may hold thousands).
  const roleIds = [...new Set(removed.map((b) => b.roleId))];
  const granting = new Set(
    (await db.select({ id: roles.id }).from(roles).where(and(inArray(roles.id, roleIds), sql`'scim.manage' = any(${roles.permissions})`))).map((r) => r.id),
  );
  const people = [...new Set(removed.filter((b) => granting.has(b.roleId)).map((b) => b.userId))];
  if (people.length === 0) return;
  // Their accounts first (in one order): a token one of them is making meanwhile holds theirs until it commits
  // (holdCallerMembership), so it is seen below; one made after this waits, and then reads the permission gone.
  await lockAccounts(db, people);
  const makers = (await db.selectDistinct({ userId: scimTokens.userId }).from(scimTokens).where(and(eq(scimTokens.organizationId, orgId), inList(scimTokens.userId, people)))).map(
    (m) => m.userId,
  );
  if (makers.length === 0) return;
  const holders = await holdersOf(db, orgId, makers, "scim.manage");
  const without = makers.filter((id) => !holders.has(id));
  // Only when there is one: a write to the tokens' table, even one deleting nothing, empties every replica's cache of SCIM tokens.
  if (without.length > 0) await db.delete(scimTokens).where(and(eq(scimTokens.organizationId, orgId), inList(scimTokens.userId, without)));
}

/** Deletes keys outright (keys minted for a console session leave nothing behind when it ends). */
export async function deleteApiKeys(db: Database, accessKeyIds: string[]): Promise<void> {
  if (accessKeyIds.length === 0) return;
  await db.delete(apiKeys).where(inArray(apiKeys.id, accessKeyIds));
}
