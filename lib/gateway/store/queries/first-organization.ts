import { asc, eq } from "drizzle-orm";
import type { Database } from "../client";
import { memberships } from "../schema";

/**
 * The caller's "first" organization, for operations that name none (registry tokens,
 * feature flags): the one they joined earliest, ties broken by id, so it stays the
 * same as the caller joins more organizations.
 */
export async function firstOrganization(db: Database, userId: string): Promise<string | undefined> {
  const [first] = await db
    .select({ organizationId: memberships.organizationId })
    .from(memberships)
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt), asc(memberships.organizationId))
    .limit(1);
  return first?.organizationId;
}
