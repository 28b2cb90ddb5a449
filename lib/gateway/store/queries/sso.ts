import { randomUUID } from "node:crypto";
import { and, arrayContains, arrayOverlaps, asc, eq, inArray, or, sql } from "drizzle-orm";
import type { SsoProvider } from "@/lib/contract/sso";
import type { Database } from "../client";
import { apiKeys, ssoIdentities, ssoProviders } from "../schema";

export type SsoProviderRow = typeof ssoProviders.$inferSelect;

export const PROVIDER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function toSsoProvider(row: SsoProviderRow): SsoProvider {
  return {
    id: row.id,
    org_id: row.organizationId,
    client_id: row.clientId,
    issuer_uri: row.issuerUri,
    created_at: row.createdAt.toISOString(),
    email_domains: row.emailDomains,
    has_client_secret: row.clientSecretCiphertext !== null,
  };
}

export async function listSsoProviders(db: Database, organizationId: string): Promise<SsoProviderRow[]> {
  return db
    .select()
    .from(ssoProviders)
    .where(eq(ssoProviders.organizationId, organizationId))
    .orderBy(asc(ssoProviders.createdAt), asc(ssoProviders.id));
}

export async function findSsoProvider(db: Database, organizationId: string, providerId: string): Promise<SsoProviderRow | undefined> {
  if (!PROVIDER_ID.test(providerId)) return undefined;
  const [row] = await db
    .select()
    .from(ssoProviders)
    .where(and(eq(ssoProviders.organizationId, organizationId), eq(ssoProviders.id, providerId)));
  return row;
}

/** Any number that no other advisory lock of the store uses. */
const SSO_DOMAINS_LOCK_ID = 727_411_003;

/**
 * Makes concurrent provider creations, in any organization, check domains one after the other
 * (until the transaction ends): a domain is claimed by one organization only.
 */
export async function lockEmailDomains(tx: Database): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${SSO_DOMAINS_LOCK_ID})`);
}

/** For each of these domains a provider serves: its id and organization. */
export async function claimedEmailDomains(tx: Database, domains: string[]): Promise<Map<string, { providerId: string; organizationId: string }>> {
  const claimed = new Map<string, { providerId: string; organizationId: string }>();
  if (domains.length === 0) return claimed;
  const rows = await tx
    .select({ id: ssoProviders.id, organizationId: ssoProviders.organizationId, emailDomains: ssoProviders.emailDomains })
    .from(ssoProviders)
    .where(arrayOverlaps(ssoProviders.emailDomains, domains))
    .orderBy(asc(ssoProviders.createdAt), asc(ssoProviders.id));
  for (const row of rows) {
    for (const domain of row.emailDomains) {
      if (domains.includes(domain) && !claimed.has(domain)) claimed.set(domain, { providerId: row.id, organizationId: row.organizationId });
    }
  }
  return claimed;
}

export async function insertSsoProvider(
  tx: Database,
  p: { organizationId: string; clientId: string; clientSecretCiphertext: string | null; issuerUri: string; emailDomains: string[]; signsInOwners: boolean },
): Promise<SsoProviderRow> {
  const [created] = await tx.insert(ssoProviders).values({ id: randomUUID(), ...p }).returning();
  if (!created) throw new Error("provider insert returned nothing");
  return created;
}

/** The deleted provider, or undefined when it was already gone. */
/**
 * Deletes the provider and, in the same transaction, the keys the console minted for the sessions it
 * signed in: from then on none of them signs anything, busy or idle (the console ends each session
 * at its next request, or its sweep).
 */
export async function deleteSsoProviderRow(tx: Database, orgId: string, providerId: string): Promise<SsoProviderRow | undefined> {
  const [row] = await tx
    .delete(ssoProviders)
    .where(and(eq(ssoProviders.organizationId, orgId), eq(ssoProviders.id, providerId)))
    .returning();
  if (row) await tx.delete(apiKeys).where(eq(apiKeys.ssoProviderId, row.id));
  return row;
}

/** Replaces the client id and/or the (encrypted) client secret; undefined when the provider is not there. */
export async function updateSsoProviderRow(
  tx: Database,
  orgId: string,
  providerId: string,
  p: { clientId?: string; clientSecretCiphertext?: string; signsInOwners?: false },
): Promise<SsoProviderRow | undefined> {
  const [row] = await tx
    .update(ssoProviders)
    .set(p)
    .where(and(eq(ssoProviders.organizationId, orgId), eq(ssoProviders.id, providerId)))
    .returning();
  return row;
}

/** A provider by its id alone, whichever organization it serves: a sign-in names only the provider. */
export async function findSsoProviderById(db: Database, providerId: string): Promise<SsoProviderRow | undefined> {
  if (!PROVIDER_ID.test(providerId)) return undefined;
  const [row] = await db.select().from(ssoProviders).where(eq(ssoProviders.id, providerId));
  return row;
}

/** Every provider, in any organization, serving this (lower-case) e-mail domain. */
export async function ssoProvidersForDomain(db: Database, domain: string): Promise<SsoProviderRow[]> {
  return db
    .select()
    .from(ssoProviders)
    .where(arrayContains(ssoProviders.emailDomains, [domain]))
    .orderBy(asc(ssoProviders.createdAt), asc(ssoProviders.id));
}

/** The longest subject kept: OpenID Connect Core §2 caps `sub` at 255 ASCII characters. */
export const MAX_SSO_SUBJECT = 255;

/**
 * What the provider has linked so far of this subject and this account (sso_identities): the account
 * the subject signs in, and the subject the account signs in as; each undefined while unlinked.
 */
export async function ssoIdentityLinks(
  tx: Database,
  providerId: string,
  subject: string,
  userId: string | undefined,
): Promise<{ subjectsAccount: string | undefined; accountsSubject: string | undefined }> {
  const rows = await tx
    .select({ subject: ssoIdentities.subject, userId: ssoIdentities.userId })
    .from(ssoIdentities)
    .where(and(eq(ssoIdentities.providerId, providerId), userId === undefined ? eq(ssoIdentities.subject, subject) : or(eq(ssoIdentities.subject, subject), eq(ssoIdentities.userId, userId))));
  return {
    subjectsAccount: rows.find((r) => r.subject === subject)?.userId,
    accountsSubject: userId === undefined ? undefined : rows.find((r) => r.userId === userId)?.subject,
  };
}

/** Links the subject to the account at its first sign-in; a link made meanwhile (either way) is kept, not replaced. */
export async function linkSsoIdentity(tx: Database, providerId: string, subject: string, userId: string): Promise<void> {
  await tx.insert(ssoIdentities).values({ providerId, subject, userId }).onConflictDoNothing();
}

/** Forgets who the organization's providers signed in as this person: they left, and whoever holds the address next is someone else. */
export async function forgetSsoIdentities(tx: Database, orgId: string, userId: string): Promise<void> {
  const providers = tx.select({ id: ssoProviders.id }).from(ssoProviders).where(eq(ssoProviders.organizationId, orgId));
  await tx.delete(ssoIdentities).where(and(eq(ssoIdentities.userId, userId), inArray(ssoIdentities.providerId, providers)));
}

/** Forgets every subject the provider linked: its subjects are another application's now (a new client id). */
export async function forgetProviderIdentities(tx: Database, providerId: string): Promise<void> {
  await tx.delete(ssoIdentities).where(eq(ssoIdentities.providerId, providerId));
}
