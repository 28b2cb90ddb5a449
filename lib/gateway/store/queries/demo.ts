import { and, asc, eq, gt, isNull, or } from "drizzle-orm";
import type { Database } from "../client";
import { apiKeys, memberships, organizations, users } from "../schema";

/**
 * A person's live key of this name made with the organization, in the same transaction (the same `now()`: the demo's
 * seed writes both), by e-mail, with its sealed secret; null when there is none. A key of the name made later, by
 * anyone, is not it.
 */
export async function keyMadeWithOrganization(db: Database, organizationId: string, email: string, name: string, now: Date) {
  const [row] = await db
    .select({ userId: users.id, email: users.email, accessKeyId: apiKeys.id, secretCiphertext: apiKeys.secretCiphertext })
    .from(users)
    .innerJoin(apiKeys, eq(apiKeys.userId, users.id))
    .innerJoin(organizations, eq(organizations.id, organizationId))
    .where(
      and(
        eq(users.email, email),
        eq(apiKeys.name, name),
        eq(apiKeys.createdAt, organizations.createdAt),
        isNull(apiKeys.revokedAt),
        isNull(apiKeys.ssoProviderId),
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)),
      ),
    )
    .orderBy(asc(apiKeys.id))
    .limit(1);
  return row ?? null;
}

/** The oldest organization of this name the person (by e-mail) owns, an active ownership; null when there is none. */
export async function ownedOrganizationNamed(db: Database, ownerEmail: string, name: string): Promise<string | null> {
  const [row] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .innerJoin(memberships, eq(memberships.organizationId, organizations.id))
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(organizations.name, name), eq(users.email, ownerEmail), eq(memberships.relation, "owner"), eq(memberships.status, "active")))
    .orderBy(asc(organizations.createdAt), asc(organizations.id))
    .limit(1);
  return row?.id ?? null;
}
