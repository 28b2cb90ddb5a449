import { and, asc, eq } from "drizzle-orm";
import type { Database } from "../client";
import { memberships } from "../schema";

/**
 * The caller's "first" organization, for operations that name none (registry tokens,
 * feature flags): the one they joined earliest, ties broken by id, so it stays the
 * same as the caller joins more organizations. A key that acts in one organization has that one.
 * Only organizations the caller is an active member of: a suspended membership reaches nothing,
 * so its organization neither owns what the caller makes nor targets their flags. The audit log
 * alone (`includeSuspended`) files a refused call of a suspended person with the organization that
 * suspended them.
 */
export async function firstOrganization(
  db: Database,
  caller: { userId: string; organizationId?: string },
  options: { includeSuspended?: boolean } = {},
): Promise<string | undefined> {
  const only = caller.organizationId;
  const [first] = await db
    .select({ organizationId: memberships.organizationId })
    .from(memberships)
    .where(
      and(
        eq(memberships.userId, caller.userId),
        only === undefined ? undefined : eq(memberships.organizationId, only),
        options.includeSuspended ? undefined : eq(memberships.status, "active"),
      ),
    )
    .orderBy(asc(memberships.createdAt), asc(memberships.organizationId))
    .limit(1);
  return first?.organizationId;
}
