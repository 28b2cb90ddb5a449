import { and, eq, inArray, type SQL } from "drizzle-orm";
import type { Role, RoleBinding } from "@/lib/contract/iam";
import type { Database } from "../client";
import { roleBindings, roles } from "../schema";

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
  }));
}
