import { and, asc, eq, gt, isNull, or } from "drizzle-orm";
import type { Database } from "../client";
import { apiKeys, memberships, organizations, users } from "../schema";

/** A person's oldest live key of this name (the demo's are named "demo"), by e-mail, with its sealed secret. */
export async function liveKeyNamed(db: Database, email: string, name: string, now: Date) {
  const [row] = await db
    .select({ userId: users.id, email: users.email, accessKeyId: apiKeys.id, secretCiphertext: apiKeys.secretCiphertext })
    .from(users)
    .innerJoin(apiKeys, eq(apiKeys.userId, users.id))
    .where(and(eq(users.email, email), eq(apiKeys.name, name), isNull(apiKeys.revokedAt), isNull(apiKeys.ssoProviderId), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now))))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
    .limit(1);
  return row ?? null;
}

/** The oldest organization of this name the person owns (an active ownership), or null. */
export async function ownedOrganizationNamed(db: Database, userId: string, name: string): Promise<string | null> {
  const [row] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .innerJoin(memberships, eq(memberships.organizationId, organizations.id))
    .where(and(eq(organizations.name, name), eq(memberships.userId, userId), eq(memberships.relation, "owner"), eq(memberships.status, "active")))
    .orderBy(asc(organizations.createdAt), asc(organizations.id))
    .limit(1);
  return row?.id ?? null;
}
