import { randomUUID } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { auditAs, mutate } from "../../audit";
import { requirePermission } from "../../authz";
import { badRequest, forbidden, notFound } from "../../errors";
import { listBindings, listRoles as listRoleRows, toRole } from "../../store/queries/iam";
import { memberships, projects, roleBindings, roles, users } from "../../store/schema";
import type { AppRouteHandler } from "../shared";
import type * as routes from "./iam.routes";

export const listRoles: AppRouteHandler<typeof routes.listRoles> = async (c) => {
  const orgs = await c.get("access").memberships();
  if (orgs.size === 0) throw forbidden("the caller belongs to no organization");
  const rows = await listRoleRows(c.get("deps").db, [...orgs.keys()]);
  return c.json({ roles: rows.map(toRole) }, 200);
};

export const listRoleBindings: AppRouteHandler<typeof routes.listRoleBindings> = async (c) => {
  const query = c.req.valid("query");
  const { db } = c.get("deps");
  const access = c.get("access");
  const orgs = [...(await access.memberships()).keys()];
  if (orgs.length === 0) throw forbidden("the caller belongs to no organization");

  // A filter naming something the caller cannot see is a 404, not an empty list.
  if (query.user_id) {
    const [m] = await db
      .select({ userId: memberships.userId })
      .from(memberships)
      .where(and(eq(memberships.userId, query.user_id), inArray(memberships.organizationId, orgs)))
      .limit(1);
    if (!m) throw notFound(`user ${query.user_id} not found`);
  }
  if (query.role_id) {
    const [r] = await db.select({ id: roles.id }).from(roles).where(and(eq(roles.id, query.role_id), inArray(roles.organizationId, orgs)));
    if (!r) throw notFound(`role ${query.role_id} not found`);
  }
  if (query.scope_object_id && !orgs.includes(query.scope_object_id)) {
    const [p] = await db
      .select({ id: projects.id })
      .from(projects)
      .where(and(eq(projects.id, query.scope_object_id), inArray(projects.organizationId, orgs)));
    if (!p) throw notFound(`scope object ${query.scope_object_id} not found`);
  }

  const result = [];
  for (const organizationId of orgs) {
    const seeAll = await access.can(organizationId, "iam.read");
    if (!seeAll && query.user_id && query.user_id !== access.caller.userId) continue;
    result.push(
      ...(await listBindings(db, {
        organizationId,
        userId: seeAll ? query.user_id : access.caller.userId,
        roleId: query.role_id,
        scopeType: query.scope_type,
        scopeObjectId: query.scope_object_id,
      })),
    );
  }
  return c.json({ role_bindings: result }, 200);
};

interface PlannedCreate {
  index: number;
  organizationId: string;
  roleId: string;
  scopeType: string;
  scopeObjectId: string;
}

export const applyRoleBindings: AppRouteHandler<typeof routes.applyRoleBindings> = async (c) => {
  const { user_id: userId } = c.req.valid("param");
  const body = c.req.valid("json");
  const { db } = c.get("deps");
  const access = c.get("access");
  const audit = auditAs(c, { action: "Update", actionDetail: "Apply Role Bindings", targetType: "RoleBinding", targetIds: [] });

  const [user] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, userId));
  if (!user) throw notFound(`user ${userId} not found`);
  audit.targetNames = [user.email];

  // Plan and authorize every change before the transaction; a failure names the change.
  const roleIds = [...new Set(body.bindings_to_create.map((b) => b.role_id))];
  const roleRows = roleIds.length ? await db.select().from(roles).where(inArray(roles.id, roleIds)) : [];
  const rolesById = new Map(roleRows.map((r) => [r.id, r]));
  const targetOrgs = new Set(
    (await db.select({ org: memberships.organizationId }).from(memberships).where(eq(memberships.userId, userId))).map((m) => m.org),
  );
  const callerOrgs = await access.memberships();

  const creates: PlannedCreate[] = [];
  const seen = new Set<string>();
  for (const [index, input] of body.bindings_to_create.entries()) {
    const at = `bindings_to_create[${index}]`;
    if (input.customer_id !== userId) throw badRequest(`${at}.customer_id`, "must be the user_id of the path");
    const role = rolesById.get(input.role_id);
    if (!role || !callerOrgs.has(role.organizationId)) throw badRequest(`${at}.role_id`, `role ${input.role_id} not found`);
    if (!role.allowedScopes.includes(input.scope_type)) {
      throw badRequest(`${at}.scope_type`, `role ${role.roleName} cannot be bound at ${input.scope_type} scope (allowed: ${role.allowedScopes.join(", ")})`);
    }
    if (input.scope_type === "org" && input.scope_object_id !== role.organizationId) {
      throw badRequest(`${at}.scope_object_id`, `organization ${input.scope_object_id} not found for this role`);
    }
    if (input.scope_type === "project") {
      const [p] = await db
        .select({ id: projects.id })
        .from(projects)
        .where(and(eq(projects.id, input.scope_object_id), eq(projects.organizationId, role.organizationId)));
      if (!p) throw badRequest(`${at}.scope_object_id`, `project ${input.scope_object_id} not found`);
    }
    if (!targetOrgs.has(role.organizationId)) throw badRequest(`${at}.customer_id`, "the user is not a member of the role's organization");
    const key = `${input.role_id}|${input.scope_type}|${input.scope_object_id}`;
    if (seen.has(key)) throw badRequest(at, "the same binding is listed twice");
    seen.add(key);
    audit.organizationId ??= role.organizationId;
    await requirePermission(access, role.organizationId, "iam.write");
    creates.push({ index, organizationId: role.organizationId, roleId: input.role_id, scopeType: input.scope_type, scopeObjectId: input.scope_object_id });
  }

  const deleteIds = body.bindings_to_delete;
  if (new Set(deleteIds).size !== deleteIds.length) throw badRequest("bindings_to_delete", "the same binding is listed twice");
  const existing = deleteIds.length ? await db.select().from(roleBindings).where(inArray(roleBindings.id, deleteIds)) : [];
  const existingById = new Map(existing.map((b) => [b.id, b]));
  for (const [index, id] of deleteIds.entries()) {
    const binding = existingById.get(id);
    if (!binding || binding.userId !== userId || !callerOrgs.has(binding.organizationId)) {
      throw badRequest(`bindings_to_delete[${index}]`, `role binding ${id} of this user not found`);
    }
    audit.organizationId ??= binding.organizationId;
    await requirePermission(access, binding.organizationId, "iam.write");
  }

  if (!audit.organizationId) {
    // Nothing to change: still an authorized, audited call in one of the user's organizations.
    const shared = [...targetOrgs].find((org) => callerOrgs.has(org));
    if (!shared) throw notFound(`user ${userId} not found`);
    audit.organizationId = shared;
    await requirePermission(access, shared, "iam.write");
  }

  await mutate(c, { ...audit, organizationId: audit.organizationId }, async (tx, meta) => {
    // Serialize applies for one user, so concurrent ones end as some serial order would.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
    if (deleteIds.length) {
      const gone = await tx
        .delete(roleBindings)
        .where(and(inArray(roleBindings.id, deleteIds), eq(roleBindings.userId, userId)))
        .returning({ id: roleBindings.id });
      if (gone.length !== deleteIds.length) {
        const missing = deleteIds.findIndex((id) => !gone.some((g) => g.id === id));
        throw badRequest(`bindings_to_delete[${missing}]`, `role binding ${deleteIds[missing]} of this user not found`);
      }
    }
    // Ids go into the entry only once every change is made: a rolled-back apply names none it never made.
    const created: string[] = [];
    for (const create of creates) {
      const [dup] = await tx
        .select({ id: roleBindings.id })
        .from(roleBindings)
        .where(
          and(
            eq(roleBindings.userId, userId),
            eq(roleBindings.roleId, create.roleId),
            eq(roleBindings.scopeType, create.scopeType),
            eq(roleBindings.scopeObjectId, create.scopeObjectId),
          ),
        );
      if (dup) throw badRequest(`bindings_to_create[${create.index}]`, `the user already has this binding (${dup.id})`);
      const id = randomUUID();
      await tx.insert(roleBindings).values({ id, organizationId: create.organizationId, userId, roleId: create.roleId, scopeType: create.scopeType, scopeObjectId: create.scopeObjectId });
      created.push(id);
    }
    meta.targetIds = [...created, ...deleteIds];
  });
  return c.json({}, 200);
};

