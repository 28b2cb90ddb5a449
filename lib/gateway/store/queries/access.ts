import { and, asc, eq, max } from "drizzle-orm";
import type { Database } from "../client";
import { memberships, roleBindings, roles } from "../schema";

export type Relation = "owner" | "member";

/** What one role binding grants: its role's permissions, at org scope or on one project. */
export interface Grant {
  permissions: string[];
  scopeType: string;
  scopeObjectId: string;
}

/** Organization id → the user's relation to it; a suspended membership (SCIM `active: false`) reaches nothing. */
export async function relationsOf(db: Database, userId: string): Promise<Map<string, Relation>> {
  const rows = await db
    .select({ organizationId: memberships.organizationId, relation: memberships.relation })
    .from(memberships)
    .where(and(eq(memberships.userId, userId), eq(memberships.status, "active")));
  return new Map(rows.map((r) => [r.organizationId, r.relation as Relation]));
}

/**
 * Every organization the account belongs to, its suspended memberships included, in the order the
 * account joined them: the first is its home organization, which governs what belongs to the account.
 */
export async function organizationsOfAccount(db: Database, userId: string): Promise<string[]> {
  const rows = await db
    .select({ organizationId: memberships.organizationId })
    .from(memberships)
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt), asc(memberships.organizationId));
  return rows.map((r) => r.organizationId);
}

/** The user's role bindings in one organization, with their roles' permissions. */
export async function grantsOf(db: Database, userId: string, orgId: string): Promise<Grant[]> {
  return db
    .select({ permissions: roles.permissions, scopeType: roleBindings.scopeType, scopeObjectId: roleBindings.scopeObjectId })
    .from(roleBindings)
    .innerJoin(roles, eq(roles.id, roleBindings.roleId))
    .where(and(eq(roleBindings.userId, userId), eq(roleBindings.organizationId, orgId)));
}

/** When the user was last suspended in any organization (SCIM `active: false`), if they are suspended anywhere. */
export async function latestSuspension(db: Database, userId: string): Promise<number | null> {
  const [row] = await db
    .select({ at: max(memberships.updatedAt) })
    .from(memberships)
    .where(and(eq(memberships.userId, userId), eq(memberships.status, "suspended")));
  return row?.at ? new Date(row.at).getTime() : null;
}
