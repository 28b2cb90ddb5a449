import { PEOPLE_BY_ID_MAX, PEOPLE_DEFAULT_LIMIT } from "@/lib/contract/people";
import { auditAs, mutate } from "../../audit";
import { holdAdminAuthority, requireOrgMember, requireOwnerForOwner, requirePermission, type Access, type Permission } from "../../authz";
import { badRequest, conflict, forbidden, notFound } from "../../errors";
import type { Database } from "../../store/client";
import { accountDeciders } from "../../store/queries/access";
import { projectExistsIn } from "../../store/queries/iam";
import { markFactorsReset, resetPersonMfa } from "../../store/queries/mfa-factors";
import {
  BASELINE_ROLE,
  findPerson,
  invitePerson,
  orgRolesByIds,
  otherActiveOwner,
  peoplePage,
  removePerson,
  roleIdByName,
  setSsoRequired,
  toPerson,
  UserNameTaken,
} from "../../store/queries/people";
import type { AppRouteHandler } from "../shared";
import { decodePeopleToken, encodePeopleToken } from "./page-token";
import type * as routes from "./people.routes";

export const listOrganizationPeople: AppRouteHandler<typeof routes.listOrganizationPeople> = async (c) => {
  const { org_id: orgId } = c.req.valid("param");
  const q = c.req.valid("query");
  const { db, masterKey } = c.get("deps");
  const access = c.get("access");
  // The directory is open to every member (names and e-mails of colleagues, as in a workspace directory);
  // when someone was last active is for those who read IAM.
  await requireOrgMember(access, orgId);
  const showActivity = await access.can(orgId, "iam.read");
  // Ids asked for, all blank (`?user_id=`): none of them is anyone, so no one is listed (not everyone, as without the filter).
  if (c.req.queries("user_id") !== undefined && !q.user_id?.length) return c.json({ items: [], next_page_token: "", prev_page_token: "" }, 200);
  const after = q.next_token ? decodePeopleToken(masterKey, orgId, "next", q.next_token) : undefined;
  const before = q.prev_token ? decodePeopleToken(masterKey, orgId, "prev", q.prev_token) : undefined;
  const page = await peoplePage(db, orgId, { status: q.status, q: q.q || undefined, userIds: q.user_id }, { limit: q.limit ?? (q.user_id?.length ? PEOPLE_BY_ID_MAX : PEOPLE_DEFAULT_LIMIT), after, before });
  return c.json(
    {
      items: page.items.map((r) => toPerson(r, showActivity)),
      next_page_token: page.next !== null ? encodePeopleToken(masterKey, orgId, "next", page.next) : "",
      prev_page_token: page.prev !== null ? encodePeopleToken(masterKey, orgId, "prev", page.prev) : "",
    },
    200,
  );
};

export const inviteOrganizationPerson: AppRouteHandler<typeof routes.inviteOrganizationPerson> = async (c) => {
  const { org_id: orgId } = c.req.valid("param");
  const body = c.req.valid("json");
  const { db } = c.get("deps");
  const audit = auditAs(c, { organizationId: orgId, action: "Create", actionDetail: "Invite Person", targetType: "User", targetIds: [], targetNames: [body.email.toLowerCase()] });
  await requirePermission(c.get("access"), orgId, "iam.write");

  const requested = body.role_ids ?? [];
  const found = await orgRolesByIds(db, orgId, requested);
  for (const [index, id] of requested.entries()) {
    const role = found.get(id);
    if (!role) throw badRequest(`body.role_ids[${index}]`, `role ${id} not found in this organization`);
    if (!role.allowedScopes.includes("org")) {
      throw badRequest(`body.role_ids[${index}]`, `role ${role.roleName} cannot be granted organization-wide (allowed: ${role.allowedScopes.join(", ")})`);
    }
  }
  const baseline = await roleIdByName(db, orgId, BASELINE_ROLE);
  const roleIds = [...new Set([...(baseline ? [baseline] : []), ...requested])];

  const person = await mutate(c, audit, async (tx, meta) => {
    await holdAdminAuthority(tx, orgId, c.get("caller").userId, "iam.write");
    const made = await invitePerson(tx, { organizationId: orgId, email: body.email, name: body.name || undefined, roleIds }).catch((error: unknown) => {
      throw error instanceof UserNameTaken ? conflict(error.message) : error;
    });
    if (!made) throw conflict(`${body.email.toLowerCase()} is already a person of this organization`);
    meta.targetIds = [made.id];
    return made;
  });
  return c.json(toPerson(person), 201);
};

export const removeOrganizationPerson: AppRouteHandler<typeof routes.removeOrganizationPerson> = async (c) => {
  const { org_id: orgId, user_id: userId } = c.req.valid("param");
  const { db } = c.get("deps");
  const access = c.get("access");
  const audit = auditAs(c, { organizationId: orgId, action: "Delete", actionDetail: "Remove Person", targetType: "User", targetIds: [userId] });
  await requirePermission(access, orgId, "iam.write");
  const person = await findPerson(db, orgId, userId);
  if (!person) throw notFound(`user ${userId} is not a person of this organization`);
  audit.targetNames = [person.email];
  await requireOwnerForOwner(access, orgId, person.relation, "remove");
  await mutate(c, audit, async (tx) => {
    await holdAdminAuthority(tx, orgId, c.get("caller").userId, "iam.write", { userId, change: "remove" });
    const current = await findPerson(tx, orgId, userId);
    if (!current) throw notFound(`user ${userId} is not a person of this organization`);
    // An owner who is suspended (by the organization's SCIM) does not count: someone must be able to act as owner.
    if (current.relation === "owner" && !(await otherActiveOwner(tx, orgId, userId))) {
      throw badRequest("user_id", "the last active owner of the organization cannot be removed; make another person an owner first");
    }
    await removePerson(tx, orgId, userId);
  });
  return c.body(null, 204);
};

/**
 * A person's second factors, and whether their key opens a console session, belong to their account,
 * which other organizations may share. Changing them takes the permission in the organizations that
 * decide for the account (accountDeciders: its home alone while it is a person there, otherwise all of
 * them), so that an organization that adds an existing account can neither weaken nor block the home's
 * sign-ins, nor stop the home from managing them. A stranger to this organization is a 404 first, so
 * that nothing is told of their other memberships. Checked before the change's transaction: the
 * caller's access reads the store outside it.
 */
async function requireAccountDeciders(
  db: Database,
  access: Access,
  orgId: string,
  userId: string,
  rule: { permission: Permission; change: string; verb: string },
): Promise<void> {
  const { permission, change, verb } = rule;
  const { organizations, deciders, home } = await accountDeciders(db, userId);
  if (!organizations.includes(orgId)) throw notFound(`user ${userId} is not a person of this organization`);
  for (const decider of deciders) {
    if (decider === orgId) continue; // the handler has checked this organization's rules
    const why = home ? "the account's home organization decides" : "each of them decides";
    if (!(await access.can(decider, permission))) {
      throw forbidden(`${change} applies to every organization of user ${userId}, and ${why}: you do not hold ${permission} ${home ? "there" : "in all of them"}`);
    }
    // The owner-for-owner rule holds where the decision is made: an owner there is reached by an owner
    // there only, not through an organization where an admin of theirs made them a plain member.
    const relation = (await findPerson(db, decider, userId))?.relation;
    await requireOwnerForOwner(access, decider, relation, verb, `${change} applies to every organization of user ${userId}, and ${why}: only an owner there`);
  }
}

export const updateOrganizationPerson: AppRouteHandler<typeof routes.updateOrganizationPerson> = async (c) => {
  const { org_id: orgId, user_id: userId } = c.req.valid("param");
  const body = c.req.valid("json");
  const audit = auditAs(c, {
    organizationId: orgId,
    action: "Update",
    actionDetail: body.sso_required ? "Require SSO sign-in" : "Allow API key sign-in",
    targetType: "User",
    targetIds: [userId],
  });
  const access = c.get("access");
  await requirePermission(access, orgId, "iam.write");
  const target = await findPerson(c.get("deps").db, orgId, userId);
  if (!target) throw notFound(`user ${userId} is not a person of this organization`);
  await requireOwnerForOwner(access, orgId, target.relation, body.sso_required ? "require SSO sign-in of" : "lift SSO sign-in of");
  // Requiring SSO stops the person's key sign-in everywhere; lifting it is this organization's own business.
  if (body.sso_required) {
    await requireAccountDeciders(c.get("deps").db, access, orgId, userId, { permission: "iam.write", change: "Requiring SSO sign-in", verb: "require SSO sign-in of" });
  }
  const person = await mutate(c, audit, async (tx, meta) => {
    const change = body.sso_required ? "require SSO sign-in of" : "lift SSO sign-in of";
    await holdAdminAuthority(tx, orgId, c.get("caller").userId, "iam.write", { userId, change });
    const updated = (await setSsoRequired(tx, orgId, userId, body.sso_required)) ? await findPerson(tx, orgId, userId) : undefined;
    if (!updated) throw notFound(`user ${userId} is not a person of this organization`);
    meta.targetNames = [updated.email];
    return updated;
  });
  return c.json(toPerson(person), 200);
};

export const resetOrganizationPersonMfa: AppRouteHandler<typeof routes.resetOrganizationPersonMfa> = async (c) => {
  const { org_id: orgId, user_id: userId } = c.req.valid("param");
  const audit = auditAs(c, { organizationId: orgId, action: "Delete", actionDetail: "Reset MFA", targetType: "User", targetIds: [userId] });
  const access = c.get("access");
  await requirePermission(access, orgId, "mfa.manage");
  const target = await findPerson(c.get("deps").db, orgId, userId);
  if (!target) throw notFound(`user ${userId} is not a person of this organization`);
  // One's own factors too: a person who lost theirs (a sole owner with a lost phone) gets back into the console
  // with their key, which signs every API request anyway; the console's own pages ask for a factor first.
  await requireOwnerForOwner(access, orgId, target.relation, "reset the second factors of");
  await requireAccountDeciders(c.get("deps").db, access, orgId, userId, { permission: "mfa.manage", change: "Resetting second factors", verb: "reset the second factors of" });
  const person = await mutate(c, audit, async (tx, meta) => {
    await holdAdminAuthority(tx, orgId, c.get("caller").userId, "mfa.manage", { userId, change: "reset the second factors of" });
    const found = await findPerson(tx, orgId, userId);
    if (!found) throw notFound(`user ${userId} is not a person of this organization`);
    meta.targetNames = [found.email];
    // The account first, then its factors and codes: the order a renewal of the codes takes them in.
    await markFactorsReset(tx, userId, c.get("caller").accessKeyId);
    await resetPersonMfa(tx, userId);
    return { ...found, mfaMethods: [] };
  });
  return c.json(toPerson(person), 200);
};

export const getCallerPermissions: AppRouteHandler<typeof routes.getCallerPermissions> = async (c) => {
  const { org_id: orgId } = c.req.valid("param");
  const { project_id: projectId } = c.req.valid("query");
  const access = c.get("access");
  const relation = await requireOrgMember(access, orgId);
  // A project the caller cannot see is not found, as it is everywhere else (nothing tells that it exists).
  if (projectId !== undefined && (!(await projectExistsIn(c.get("deps").db, projectId, [orgId])) || !(await access.projectRelation(orgId, projectId)))) {
    throw notFound(`project ${projectId} not found`);
  }
  const projects: Record<string, Permission[]> = {};
  if (projectId === undefined) {
    for (const bound of await access.boundProjects(orgId)) projects[bound] = await access.permissions(orgId, bound);
  }
  return c.json({ organization_id: orgId, project_id: projectId ?? "", relation, permissions: await access.permissions(orgId, projectId), projects }, 200);
};
