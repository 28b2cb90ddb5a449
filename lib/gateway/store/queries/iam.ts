import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, type SQL } from "drizzle-orm";
import type { Role, RoleBinding } from "@/lib/contract/iam";
import type { Database } from "../client";
import { memberships, projects, roleBindings, roles, users } from "../schema";
import { endScimTokensOfThoseWithout } from "./api-keys";

export type RoleRow = typeof roles.$inferSelect;

export function toRole(r: RoleRow): Role {
  return { id: r.id, role_name: r.roleName, allowed_scopes: r.allowedScopes, org_id: r.organizationId, description: r.description };
}

export async function listRoles(db: Database, orgIds: string[]): Promise<RoleRow[]> {
  if (orgIds.length === 0) return [];
  return db.select().from(roles).where(inArray(roles.organizationId, orgIds)).orderBy(roles.organizationId, roles.roleName);
}

export interface BindingFilter {
  organizationId: string;
  userId?: string;
  roleId?: string;
  scopeType?: string;
  scopeObjectId?: string;
}

export async function listBindings(db: Database, filter: BindingFilter): Promise<RoleBinding[]> {
  const where: SQL[] = [eq(roleBindings.organizationId, filter.organizationId)];
  if (filter.userId) where.push(eq(roleBindings.userId, filter.userId));
  if (filter.roleId) where.push(eq(roleBindings.roleId, filter.roleId));
  if (filter.scopeType) where.push(eq(roleBindings.scopeType, filter.scopeType));
  if (filter.scopeObjectId) where.push(eq(roleBindings.scopeObjectId, filter.scopeObjectId));
  const rows = await db
    .select({ b: roleBindings, roleName: roles.roleName })
    .from(roleBindings)
    .innerJoin(roles, eq(roles.id, roleBindings.roleId))
    .where(and(...where))
    .orderBy(roleBindings.userId, roles.roleName, roleBindings.scopeType, roleBindings.scopeObjectId);
  return rows.map(({ b, roleName }) => ({
    id: b.id,
    customer_id: b.userId,
    role_id: b.roleId,
    role_name: roleName,
    scope_type: b.scopeType,
    scope_object_id: b.scopeObjectId,
    ...(b.viaGroupId ? { via_group_id: b.viaGroupId } : {}),
  }));
}

export type RoleBindingRow = typeof roleBindings.$inferSelect;

export async function findUser(db: Database, userId: string): Promise<{ id: string; email: string } | undefined> {
  const [user] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, userId));
  return user;
}

/** The organizations a user belongs to. */
/** The organizations the user belongs to (suspended memberships included), with their relation to each. */
export async function userOrganizationRelations(db: Database, userId: string): Promise<Map<string, string>> {
  const rows = await db.select({ org: memberships.organizationId, relation: memberships.relation }).from(memberships).where(eq(memberships.userId, userId));
  return new Map(rows.map((m) => [m.org, m.relation]));
}

export async function isMemberOfAny(db: Database, userId: string, orgIds: string[]): Promise<boolean> {
  const [m] = await db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.userId, userId), inArray(memberships.organizationId, orgIds)))
    .limit(1);
  return Boolean(m);
}

export async function roleExistsIn(db: Database, roleId: string, orgIds: string[]): Promise<boolean> {
  const [r] = await db.select({ id: roles.id }).from(roles).where(and(eq(roles.id, roleId), inArray(roles.organizationId, orgIds)));
  return Boolean(r);
}

export async function projectExistsIn(db: Database, projectId: string, orgIds: string[]): Promise<boolean> {
  const [p] = await db.select({ id: projects.id }).from(projects).where(and(eq(projects.id, projectId), inArray(projects.organizationId, orgIds)));
  return Boolean(p);
}

/**
 * The projects among `projectIds` that still exist, each held (FOR KEY SHARE, in one order) until the transaction
 * ends: a deletion of one, which takes its row first, waits for the transaction, and one that came first leaves
 * nothing to hold. What refers to a project by id alone (a role binding, a SCIM group mapping: no foreign key)
 * is written after this, or a deletion between the handler's check and the write would leave it behind.
 */
export async function holdProjects(tx: Database, projectIds: string[]): Promise<Set<string>> {
  const ids = [...new Set(projectIds)].sort();
  if (!ids.length) return new Set();
  const held = await tx.select({ id: projects.id }).from(projects).where(inArray(projects.id, ids)).orderBy(asc(projects.id)).for("key share");
  return new Set(held.map((p) => p.id));
}

export async function rolesByIds(db: Database, ids: string[]): Promise<Map<string, RoleRow>> {
  const rows = ids.length ? await db.select().from(roles).where(inArray(roles.id, ids)) : [];
  return new Map(rows.map((r) => [r.id, r]));
}

export async function bindingsByIds(db: Database, ids: string[]): Promise<Map<string, RoleBindingRow>> {
  const rows = ids.length ? await db.select().from(roleBindings).where(inArray(roleBindings.id, ids)) : [];
  return new Map(rows.map((b) => [b.id, b]));
}

/** One user's role-binding changes, checked and authorized: what applyBindings makes in one transaction. */
export interface BindingPlan {
  userId: string;
  creates: Array<{ index: number; organizationId: string; roleId: string; scopeType: string; scopeObjectId: string }>;
  deleteIds: string[];
}

export type ApplyResult =
  | { ok: true; createdIds: string[] }
  | { ok: false; missingDelete: number }
  | { ok: false; duplicateCreate: number; existingId: string }
  | { ok: false; notMember: number }
  | { ok: false; missingProject: number };

/**
 * Applies a plan inside the caller's transaction: deletions, then creations. Applies for one user
 * are serialized (a row lock on the user), so concurrent ones end as some serial order would. On
 * a conflict found only now, it says which change failed and the caller rolls the transaction back.
 */
export async function applyBindings(tx: Database, plan: BindingPlan): Promise<ApplyResult> {
  // The memberships the new bindings are in, held (in one order) until the transaction ends: a removal of
  // the person from one of those organizations, which takes the membership first, waits, and one that came
  // first leaves no membership to bind in (a binding would outlive it, and come back on a new invitation).
  // Held before any binding is deleted, as a removal takes them (the membership, then the bindings): the
  // other way round the two waited for each other.
  const orgIds = [...new Set(plan.creates.map((c) => c.organizationId))].sort();
  if (orgIds.length) {
    const held = await tx
      .select({ organizationId: memberships.organizationId })
      .from(memberships)
      .where(and(eq(memberships.userId, plan.userId), inArray(memberships.organizationId, orgIds)))
      .orderBy(asc(memberships.organizationId))
      .for("share");
    const member = new Set(held.map((m) => m.organizationId));
    const outside = plan.creates.find((c) => !member.has(c.organizationId));
    if (outside) return { ok: false, notMember: outside.index };
  }
  // Then the person's account, which serializes applies for one user: after the memberships, as every other change
  // that takes both takes them (a SCIM suspension, a token being made): the other way round two waited for each other.
  await tx.select({ id: users.id }).from(users).where(eq(users.id, plan.userId)).for("update");
  // Then the projects the new bindings are on, before any binding is deleted (a project's deletion takes the project,
  // then its bindings): one deleted since the handler's check is refused, not bound.
  const onProjects = plan.creates.filter((c) => c.scopeType === "project");
  const projectsHeld = await holdProjects(tx, onProjects.map((c) => c.scopeObjectId));
  const gone = onProjects.find((c) => !projectsHeld.has(c.scopeObjectId));
  if (gone) return { ok: false, missingProject: gone.index };
  /** The bindings deleted, by organization: their people's SCIM tokens may go with them. */
  const lostIn = new Map<string, Array<{ userId: string; roleId: string }>>();
  if (plan.deleteIds.length) {
    const gone = await tx
      .delete(roleBindings)
      .where(and(inArray(roleBindings.id, plan.deleteIds), eq(roleBindings.userId, plan.userId)))
      .returning({ id: roleBindings.id, organizationId: roleBindings.organizationId, roleId: roleBindings.roleId });
    if (gone.length !== plan.deleteIds.length) {
      return { ok: false, missingDelete: plan.deleteIds.findIndex((id) => !gone.some((g) => g.id === id)) };
    }
    for (const g of gone) lostIn.set(g.organizationId, [...(lostIn.get(g.organizationId) ?? []), { userId: plan.userId, roleId: g.roleId }]);
  }
  const createdIds: string[] = [];
  for (const create of plan.creates) {
    const [dup] = await tx
      .select({ id: roleBindings.id })
      .from(roleBindings)
      .where(
        and(
          eq(roleBindings.userId, plan.userId),
          eq(roleBindings.roleId, create.roleId),
          eq(roleBindings.scopeType, create.scopeType),
          eq(roleBindings.scopeObjectId, create.scopeObjectId),
          // A group-granted binding of the same role and scope is another row (removed with the group, not here).
          eq(roleBindings.viaGroupId, ""),
        ),
      );
    if (dup) return { ok: false, duplicateCreate: create.index, existingId: dup.id };
    const id = randomUUID();
    const { organizationId, roleId, scopeType, scopeObjectId } = create;
    await tx.insert(roleBindings).values({ id, organizationId, userId: plan.userId, roleId, scopeType, scopeObjectId });
    createdIds.push(id);
  }
  // Where a binding went, the person's SCIM tokens go with the permission that made them, if it went too.
  for (const [orgId, removed] of [...lostIn].sort(([a], [b]) => a.localeCompare(b))) await endScimTokensOfThoseWithout(tx, orgId, removed);
  return { ok: true, createdIds };
}

/** The id of an organization's role by its name. */
export async function roleIdByName(db: Database, params: { organizationId: string; roleName: string }): Promise<string | undefined> {
  const [role] = await db
    .select({ id: roles.id })
    .from(roles)
    .where(and(eq(roles.organizationId, params.organizationId), eq(roles.roleName, params.roleName)));
  return role?.id;
}

export async function insertRoles(db: Database, params: { rows: Array<typeof roles.$inferInsert> }): Promise<void> {
  if (params.rows.length > 0) await db.insert(roles).values(params.rows);
}

export async function insertRoleBinding(db: Database, params: typeof roleBindings.$inferInsert): Promise<void> {
  await db.insert(roleBindings).values(params);
}
