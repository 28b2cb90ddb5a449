import type { ApplyRoleBindingRequest } from "@/lib/contract/iam";
import { auditAs, mutate } from "../../audit";
import type { AuditMeta } from "../../context";
import { holdAdminAuthority, requireOwnerForOwner, requirePermission, type Access } from "../../authz";
import { badRequest, forbidden, notFound } from "../../errors";
import type { Database } from "../../store/client";
import { findProject } from "../../store/queries/projects";
import {
  applyBindings,
  bindingsByIds,
  findUser,
  isMemberOfAny,
  listBindings,
  listRoles as listRoleRows,
  projectExistsIn,
  roleExistsIn,
  rolesByIds,
  toRole,
  userOrganizationRelations,
  type BindingPlan,
} from "../../store/queries/iam";
import type { AppRouteHandler } from "../shared";
import type * as routes from "./iam.routes";

export const listRoles: AppRouteHandler<typeof routes.listRoles> = async (c) => {
  const orgs = await c.get("access").memberships();
  if (orgs.size === 0) throw forbidden("the caller belongs to no organization");
  const rows = await listRoleRows(c.get("deps").db, [...orgs.keys()]);
  return c.json({ roles: rows.map(toRole) }, 200);
};

/** Whether a project of the caller's organizations is one they may know of: theirs to see, or theirs to read IAM in. */
async function projectVisible(db: Database, access: Access, projectId: string, orgs: string[]): Promise<boolean> {
  const project = await findProject(db, projectId);
  if (!project || !orgs.includes(project.organizationId)) return false;
  return (await access.can(project.organizationId, "iam.read")) || (await access.projectRelation(project.organizationId, project.id)) !== null;
}

export const listRoleBindings: AppRouteHandler<typeof routes.listRoleBindings> = async (c) => {
  const query = c.req.valid("query");
  const { db } = c.get("deps");
  const access = c.get("access");
  const orgs = [...(await access.memberships()).keys()];
  if (orgs.length === 0) throw forbidden("the caller belongs to no organization");

  // A filter naming something the caller cannot see is a 404, not an empty list.
  if (query.user_id && !(await isMemberOfAny(db, query.user_id, orgs))) throw notFound(`user ${query.user_id} not found`);
  if (query.role_id && !(await roleExistsIn(db, query.role_id, orgs))) throw notFound(`role ${query.role_id} not found`);
  // A project only if the caller sees it (or reads IAM there): nothing tells that a project hidden from them exists.
  if (query.scope_object_id && !orgs.includes(query.scope_object_id) && !(await projectVisible(db, access, query.scope_object_id, orgs))) {
    throw notFound(`scope object ${query.scope_object_id} not found`);
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

/**
 * Checks and authorizes every change of an apply before any is made; a refusal names the change.
 * The audit entry is filed in the first organization a change touches.
 */
async function planBindingChanges(
  db: Database,
  access: Access,
  userId: string,
  body: ApplyRoleBindingRequest,
  audit: AuditMeta,
): Promise<BindingPlan & { organizationId: string; authorizedIn: string[] }> {
  const rolesById = await rolesByIds(db, [...new Set(body.bindings_to_create.map((b) => b.role_id))]);
  const targetOrgs = await userOrganizationRelations(db, userId);
  const callerOrgs = await access.memberships();
  // A person of no organization of the caller's does not exist for them, whatever the body asks (a 400 about the
  // person or their bindings would tell that the account exists elsewhere).
  if (![...targetOrgs.keys()].some((org) => callerOrgs.has(org))) throw notFound(`user ${userId} not found`);

  const creates: BindingPlan["creates"] = [];
  const seen = new Set<string>();
  for (const [index, input] of body.bindings_to_create.entries()) {
    const at = `bindings_to_create[${index}]`;
    if (input.customer_id !== userId) throw badRequest(`${at}.customer_id`, "must be the user_id of the path");
    const role = rolesById.get(input.role_id);
    if (!role || !callerOrgs.has(role.organizationId)) throw badRequest(`${at}.role_id`, `role ${input.role_id} not found`);
    // Authorized before anything else is looked up, so that a caller without iam.write learns nothing
    // of which projects or people exist there (a refusal is audited in the role's organization).
    audit.organizationId ??= role.organizationId;
    await requirePermission(access, role.organizationId, "iam.write");
    await requireOwnerForOwner(access, role.organizationId, targetOrgs.get(role.organizationId), "change the role bindings of");
    if (!role.allowedScopes.includes(input.scope_type)) {
      throw badRequest(`${at}.scope_type`, `role ${role.roleName} cannot be bound at ${input.scope_type} scope (allowed: ${role.allowedScopes.join(", ")})`);
    }
    if (input.scope_type === "org" && input.scope_object_id !== role.organizationId) {
      throw badRequest(`${at}.scope_object_id`, `organization ${input.scope_object_id} not found for this role`);
    }
    if (input.scope_type === "project" && !(await projectExistsIn(db, input.scope_object_id, [role.organizationId]))) {
      throw badRequest(`${at}.scope_object_id`, `project ${input.scope_object_id} not found`);
    }
    if (!targetOrgs.has(role.organizationId)) throw badRequest(`${at}.customer_id`, "the user is not a member of the role's organization");
    const key = `${input.role_id}|${input.scope_type}|${input.scope_object_id}`;
    if (seen.has(key)) throw badRequest(at, "the same binding is listed twice");
    seen.add(key);
    creates.push({ index, organizationId: role.organizationId, roleId: input.role_id, scopeType: input.scope_type, scopeObjectId: input.scope_object_id });
  }

  const deleteIds = body.bindings_to_delete;
  if (new Set(deleteIds).size !== deleteIds.length) throw badRequest("bindings_to_delete", "the same binding is listed twice");
  const existingById = await bindingsByIds(db, deleteIds);
  for (const [index, id] of deleteIds.entries()) {
    const binding = existingById.get(id);
    if (!binding || binding.userId !== userId || !callerOrgs.has(binding.organizationId)) {
      throw badRequest(`bindings_to_delete[${index}]`, `role binding ${id} of this user not found`);
    }
    audit.organizationId ??= binding.organizationId;
    await requirePermission(access, binding.organizationId, "iam.write");
    await requireOwnerForOwner(access, binding.organizationId, targetOrgs.get(binding.organizationId), "change the role bindings of");
    if (binding.viaGroupId !== "") {
      throw badRequest(
        `bindings_to_delete[${index}]`,
        `role binding ${id} is granted through a SCIM group mapping; it goes when the person leaves the group or the mapping changes`,
      );
    }
  }

  let organizationId = audit.organizationId;
  if (!organizationId) {
    // Nothing to change: still an authorized, audited call in one of the user's organizations, the first (by id) where
    // the caller holds iam.write, else the first they share (refused there): the same one whatever order rows come in.
    const shared = [...targetOrgs.keys()].filter((org) => callerOrgs.has(org)).sort();
    const writable = await Promise.all(shared.map((org) => access.can(org, "iam.write")));
    organizationId = shared[writable.indexOf(true)] ?? shared[0]!;
    audit.organizationId = organizationId;
    await requirePermission(access, organizationId, "iam.write");
  }
  const authorizedIn = [...new Set([organizationId, ...creates.map((c) => c.organizationId), ...[...existingById.values()].map((b) => b.organizationId)])].sort();
  return { userId, creates, deleteIds, organizationId, authorizedIn };
}

export const applyRoleBindings: AppRouteHandler<typeof routes.applyRoleBindings> = async (c) => {
  const { user_id: userId } = c.req.valid("param");
  const body = c.req.valid("json");
  const { db } = c.get("deps");
  const audit = auditAs(c, { action: "Update", actionDetail: "Apply Role Bindings", targetType: "RoleBinding", targetIds: [] });

  const user = await findUser(db, userId);
  if (!user) throw notFound(`user ${userId} not found`);
  audit.targetNames = [user.email];
  const plan = await planBindingChanges(db, c.get("access"), userId, body, audit);

  const callerId = c.get("caller").userId;
  await mutate(c, { ...audit, organizationId: plan.organizationId }, async (tx, meta) => {
    // The caller's iam.write in each organization the change touches, held as it stands now (in one order).
    for (const orgId of plan.authorizedIn) {
      await holdAdminAuthority(tx, orgId, callerId, "iam.write", { userId, change: "change the role bindings of" });
    }
    const result = await applyBindings(tx, plan);
    if (!result.ok && "missingDelete" in result) {
      throw badRequest(`bindings_to_delete[${result.missingDelete}]`, `role binding ${plan.deleteIds[result.missingDelete]} of this user not found`);
    }
    if (!result.ok && "missingProject" in result) {
      const create = plan.creates.find((c) => c.index === result.missingProject)!;
      throw badRequest(`bindings_to_create[${result.missingProject}].scope_object_id`, `project ${create.scopeObjectId} not found`);
    }
    if (!result.ok && "notMember" in result) throw badRequest(`bindings_to_create[${result.notMember}].customer_id`, "the user is not a member of the role's organization");
    if (!result.ok) throw badRequest(`bindings_to_create[${result.duplicateCreate}]`, `the user already has this binding (${result.existingId})`);
    // Ids go into the entry only once every change is made: a rolled-back apply names none it never made.
    meta.targetIds = [...result.createdIds, ...plan.deleteIds];
  });
  return c.json({}, 200);
};
