import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../client";
import { inList, insertParts } from "./long-lists";
import { memberships, roleBindings, roles, scimGroupMappings, scimGroups, scimIntegrations, users } from "../schema";
import { groupMemberIds } from "./scim-service";
import { endScimTokensOfThoseWithout } from "./api-keys";
import { holdProjects } from "./iam";

/**
 * What SCIM groups grant: an integration's mappings of group names to role bindings, and the
 * bindings its groups' members hold through them, kept in line as members and mappings change.
 */

export interface MappingInput {
  group_display_name: string;
  role_id: string;
  scope_type: string;
  scope_object_id: string;
}

export async function listGroupMappings(db: Database, integrationId: string): Promise<Array<MappingInput & { role_name: string }>> {
  const rows = await db
    .select({ m: scimGroupMappings, roleName: roles.roleName })
    .from(scimGroupMappings)
    .innerJoin(roles, eq(roles.id, scimGroupMappings.roleId))
    .where(eq(scimGroupMappings.integrationId, integrationId))
    .orderBy(asc(sql`lower(${scimGroupMappings.groupDisplayName})`), asc(roles.roleName), asc(scimGroupMappings.scopeType), asc(scimGroupMappings.scopeObjectId));
  return rows.map(({ m, roleName }) => ({
    group_display_name: m.groupDisplayName,
    role_id: m.roleId,
    role_name: roleName,
    scope_type: m.scopeType,
    scope_object_id: m.scopeObjectId,
  }));
}

/**
 * Holds the integration's row until the transaction ends: two replacements of its mappings at once run
 * one after the other (the second's delete would miss what the first inserted meanwhile, and the
 * mappings would end as the union of both lists), each reading the mappings the other left. False when
 * the integration is gone (a deletion committed since the caller found it): nothing may refer to it then.
 */
export async function lockScimIntegration(db: Database, integrationId: string): Promise<boolean> {
  const held = await db.select({ id: scimIntegrations.id }).from(scimIntegrations).where(eq(scimIntegrations.id, integrationId)).for("update");
  return held.length > 0;
}

export async function replaceGroupMappings(db: Database, orgId: string, integrationId: string, mappings: MappingInput[]): Promise<void> {
  await lockScimIntegration(db, integrationId);
  await db.delete(scimGroupMappings).where(eq(scimGroupMappings.integrationId, integrationId));
  if (mappings.length) {
    await db.insert(scimGroupMappings).values(
      mappings.map((m) => ({
        id: randomUUID(),
        organizationId: orgId,
        integrationId,
        groupDisplayName: m.group_display_name,
        roleId: m.role_id,
        scopeType: m.scope_type,
        scopeObjectId: m.scope_object_id,
      })),
    );
  }
}

export interface BindingChange {
  userId: string;
  groupId: string;
  roleId: string;
  scopeType: string;
  scopeObjectId: string;
}

const changeKey = (b: BindingChange) => `${b.userId}|${b.groupId}|${b.roleId}|${b.scopeType}|${b.scopeObjectId}`;

/**
 * The group-granted bindings that should exist for these groups (their members × the mappings
 * of their names) against those that do: what to create and what to delete. With `mappings`,
 * judged against those mappings instead of the stored ones (a preview). With `users`, only
 * those people's (members and bindings read for them alone): a change of a few members of a
 * large group whose name stays leaves every other member's bindings as they are.
 */
export async function groupBindingDiff(
  db: Database,
  integrationId: string,
  groupIds: string[] | "all",
  mappings?: MappingInput[],
  users?: string[],
): Promise<{ create: BindingChange[]; remove: Array<BindingChange & { id: string }> }> {
  if (users?.length === 0) return { create: [], remove: [] };
  const groups = await db
    .select({ id: scimGroups.id, name: scimGroups.displayName })
    .from(scimGroups)
    .where(and(eq(scimGroups.integrationId, integrationId), groupIds === "all" ? undefined : inArray(scimGroups.id, groupIds.length ? groupIds : [""])));
  const ids = groups.map((g) => g.id);
  const maps = mappings ?? (await listGroupMappings(db, integrationId));
  const byName = new Map<string, MappingInput[]>();
  for (const m of maps) {
    const key = m.group_display_name.toLowerCase();
    byName.set(key, [...(byName.get(key) ?? []), m]);
  }
  const members = await groupMemberIds(db, ids, users);
  const desired = new Map<string, BindingChange>();
  for (const g of groups) {
    for (const m of byName.get(g.name.toLowerCase()) ?? []) {
      for (const userId of members.get(g.id) ?? []) {
        const b = { userId, groupId: g.id, roleId: m.role_id, scopeType: m.scope_type, scopeObjectId: m.scope_object_id };
        desired.set(changeKey(b), b);
      }
    }
  }
  const existing = ids.length
    ? await db
        .select({ id: roleBindings.id, userId: roleBindings.userId, groupId: roleBindings.viaGroupId, roleId: roleBindings.roleId, scopeType: roleBindings.scopeType, scopeObjectId: roleBindings.scopeObjectId })
        .from(roleBindings)
        .where(and(inArray(roleBindings.viaGroupId, ids), users ? inList(roleBindings.userId, users) : undefined))
    : [];
  const have = new Set(existing.map(changeKey));
  return {
    create: [...desired.values()].filter((b) => !have.has(changeKey(b))),
    remove: existing.filter((b) => !desired.has(changeKey(b))),
  };
}

/**
 * Brings the group-granted bindings of these groups in line with their members and the mappings (inside the
 * caller's transaction); with `users`, those people's alone.
 */
export async function syncGroupBindings(
  db: Database,
  orgId: string,
  integrationId: string,
  groupIds: string[] | "all",
  users?: string[],
): Promise<{ created: number; removed: number }> {
  const diff = await groupBindingDiff(db, integrationId, groupIds, undefined, users);
  // The memberships of the people whose bindings change, held (in one order, before any binding is deleted, as a
  // removal takes them) until the transaction ends: a removal of one of them meanwhile waits, and one that came
  // first leaves no membership, so no binding is made for them (it would outlive them, and come back on a new invitation).
  const people = [...new Set([...diff.create, ...diff.remove].map((b) => b.userId))].sort();
  const members = people.length
    ? new Set(
        (
          await db
            .select({ userId: memberships.userId })
            .from(memberships)
            .where(and(eq(memberships.organizationId, orgId), inList(memberships.userId, people)))
            .orderBy(asc(memberships.userId))
            .for("share")
        ).map((m) => m.userId),
      )
    : new Set<string>();
  // Then the projects the new bindings are on (holdProjects): one deleted meanwhile takes its mappings with it, and
  // gets no binding from them; one deleted after waits for this transaction, and takes the bindings made here.
  const projectsHeld = await holdProjects(db, diff.create.filter((b) => b.scopeType === "project").map((b) => b.scopeObjectId));
  const create = diff.create.filter((b) => members.has(b.userId) && (b.scopeType !== "project" || projectsHeld.has(b.scopeObjectId)));
  if (diff.remove.length) await db.delete(roleBindings).where(inList(roleBindings.id, diff.remove.map((b) => b.id)));
  for (const part of insertParts(create, 7)) {
    await db
      .insert(roleBindings)
      .values(
        part.map((b) => ({
          id: randomUUID(),
          organizationId: orgId,
          userId: b.userId,
          roleId: b.roleId,
          scopeType: b.scopeType,
          scopeObjectId: b.scopeObjectId,
          viaGroupId: b.groupId,
        })),
      )
      .onConflictDoNothing();
  }
  // The people whose group-granted bindings went may have lost scim.manage with them, and their SCIM tokens with it.
  await endScimTokensOfThoseWithout(db, orgId, diff.remove);
  return { created: create.length, removed: diff.remove.length };
}

/** Binding changes with the names a person reads: e-mail, group, role. */
export async function describeBindingChanges(db: Database, changes: BindingChange[]) {
  const userIds = [...new Set(changes.map((c) => c.userId))];
  const groupIds = [...new Set(changes.map((c) => c.groupId))];
  const roleIds = [...new Set(changes.map((c) => c.roleId))];
  const emails = new Map(
    (userIds.length ? await db.select({ id: users.id, email: users.email }).from(users).where(inList(users.id, userIds)) : []).map((r) => [r.id, r.email]),
  );
  const groupNames = new Map(
    (groupIds.length ? await db.select({ id: scimGroups.id, name: scimGroups.displayName }).from(scimGroups).where(inList(scimGroups.id, groupIds)) : []).map((r) => [r.id, r.name]),
  );
  const roleNames = new Map((roleIds.length ? await db.select({ id: roles.id, name: roles.roleName }).from(roles).where(inList(roles.id, roleIds)) : []).map((r) => [r.id, r.name]));
  return changes.map((c) => ({
    user_id: c.userId,
    email: emails.get(c.userId) ?? "",
    group_id: c.groupId,
    group_display_name: groupNames.get(c.groupId) ?? "",
    role_id: c.roleId,
    role_name: roleNames.get(c.roleId) ?? "",
    scope_type: c.scopeType,
    scope_object_id: c.scopeObjectId,
  }));
}
