import type { Database } from "../../store/client";
import {
  deleteGroup,
  displayNames,
  findGroup,
  findGroupByName,
  groupMemberIds,
  insertGroup,
  listGroups,
  peopleAmong,
  setGroupMembers,
  updateGroup,
  type GroupRow,
} from "../../store/queries/scim-service";
import { syncGroupBindings } from "../../store/queries/scim-group-bindings";
import { groupResource, invalidValue, parseGroup, ScimError } from "./resources";
import { attributeList, project, wantsMembers } from "./projection";
import { applyPatch, byIdsOnly, groupMemberChanges, PATCH_LIMITS, patchOperations, withMemberChanges, type MemberEdit } from "./patch";
import { baseUrl, change, listResponse, paging, readBody, scimJson, UUID, type ScimContext } from "./frame";

/** SCIM Groups: the integration's groups, whose members hold the role bindings its group mappings name. */

const groupNotFound = (id: string) => new ScimError(404, `Group ${id.slice(0, 64)} not found`);

async function groupView(c: ScimContext, groupId: string, withMembers = true): Promise<Record<string, unknown>> {
  const { db } = c.get("deps");
  const scim = c.get("scim");
  const row = await findGroup(db, scim.integrationId, groupId);
  if (!row) throw groupNotFound(groupId);
  return resourceOf(c, row, withMembers ? ((await groupMemberIds(db, [row.id])).get(row.id) ?? []) : null);
}

async function checkMembers(db: Database, orgId: string, ids: string[]): Promise<void> {
  membersArePeople(ids, await peopleAmong(db, orgId, ids));
}

/** Refuses a member id that is not one of `people` (the organization's, as read). */
function membersArePeople(ids: string[], people: Set<string>): void {
  const bad = ids.find((id) => !UUID.test(id));
  if (bad !== undefined) throw invalidValue(`members: ${bad.slice(0, 64)} is not a person of this organization`);
  const missing = ids.find((id) => !people.has(id));
  if (missing !== undefined) throw invalidValue(`members: ${missing} is not a person of this organization`);
}

export async function createGroup(c: ScimContext): Promise<Response> {
  const input = parseGroup(await readBody(c));
  const { db } = c.get("deps");
  const scim = c.get("scim");
  if (await findGroupByName(db, scim.integrationId, input.displayName)) throw new ScimError(409, `a group named ${input.displayName.slice(0, 64)} exists already`, "uniqueness");
  const members = input.members ?? [];
  // A quick refusal before the change; the change checks again, holding them.
  await checkMembers(db, scim.organizationId, members);
  const now = new Date();
  const row = await change(c, { action: "Create", detail: "SCIM: Create Group", targetType: "Group", targetNames: [input.displayName] }, async (tx, meta) => {
    const made = await insertGroup(tx, { orgId: scim.organizationId, integrationId: scim.integrationId, displayName: input.displayName, externalId: input.externalId, now });
    meta.targetIds = [made.id];
    // Checked again with the members held: one removed since the first check (a removal takes their group
    // memberships, and this group was not there yet for it to take) is refused, not kept as a member.
    membersArePeople(members, await peopleAmong(tx, scim.organizationId, members, "share"));
    await setGroupMembers(tx, made.id, members, [], now);
    await syncGroupBindings(tx, scim.organizationId, scim.integrationId, [made.id]);
    return made;
  });
  // The group as written, not read back: a deletion of the integration just after the commit (which takes its
  // groups) would make a 404 of a create the audit log records as done.
  const resource = await resourceOf(c, row, members);
  return scimJson(c, resource, 201, { Location: String((resource.meta as { location: string }).location) });
}

type GroupFields = { displayName: string; externalId: string | null };
type GroupInput = GroupFields & { members: string[] | null };

/**
 * What a change makes of a group, from its row as held: its new state built from all its member ids (`whole`);
 * or, for members added and removed by id under a name that stays, its name, external id and those changes
 * (`byIds`), for which only the members they name are read.
 */
type GroupPlan = { whole: (members: string[]) => GroupInput } | { byIds: MemberEdit[]; fields: GroupFields };

/** The members a change adds and removes; `touched`, the people whose bindings may change (all of them: undefined). */
type MemberDifference = { fields: GroupFields; add: string[]; remove: string[]; touched?: string[]; members?: string[] };

/** The group as written, and its member ids when the answer names them. */
type Written = { row: GroupRow; members: string[] | null };

/**
 * Writes a group's new state: name, external id, members (the difference), and the bindings that
 * follow. `plan` builds it from the group as it is, read and held inside the change (with its member
 * ids): two changes of one group at once run one after the other, and the second builds on the first
 * (two member additions at once keep both).
 */
async function replaceGroup(c: ScimContext, groupId: string, plan: (row: GroupRow) => GroupPlan, detail: string, withMembers: boolean): Promise<Written> {
  const scim = c.get("scim");
  return change(c, { action: "Update", detail, targetType: "Group", targetIds: [groupId] }, async (tx, meta) => {
    const row = await findGroup(tx, scim.integrationId, groupId, "update");
    if (!row) throw groupNotFound(groupId);
    const planned = plan(row);
    const diff = "whole" in planned ? await wholeDifference(tx, row.id, planned.whole) : await differenceByIds(tx, row.id, planned.byIds, planned.fields);
    const { fields, add, remove } = diff;
    if (await findGroupByName(tx, scim.integrationId, fields.displayName, row.id)) {
      throw new ScimError(409, `a group named ${fields.displayName.slice(0, 64)} exists already`, "uniqueness");
    }
    // The people added and removed held (in one order) while this runs: a removal of one of them runs before or after it.
    membersArePeople(add, await peopleAmong(tx, scim.organizationId, [...add, ...remove], "share"));
    meta.targetIds = [row.id, ...add, ...remove].slice(0, 20);
    meta.targetNames = [fields.displayName];
    const now = new Date();
    await updateGroup(tx, row.id, { displayName: fields.displayName, externalId: fields.externalId, now });
    await setGroupMembers(tx, row.id, add, remove, now);
    await syncGroupBindings(tx, scim.organizationId, scim.integrationId, [row.id], diff.touched);
    // Where only the members named were read, the whole list (when the answer names it) is read here, inside the
    // change: the group as written, in the order a read gives.
    const members = withMembers ? (diff.members ?? (await groupMemberIds(tx, [row.id])).get(row.id) ?? []) : null;
    return { row: { ...row, displayName: fields.displayName, externalId: fields.externalId, updatedAt: now }, members };
  });
}

/** The whole new member list against the whole current one (every member read), and every member's bindings to sync. */
async function wholeDifference(tx: Database, groupId: string, build: (members: string[]) => GroupInput): Promise<MemberDifference> {
  const current = (await groupMemberIds(tx, [groupId])).get(groupId) ?? [];
  const input = build(current);
  const wanted = input.members ?? current;
  const have = new Set(current);
  const want = new Set(wanted);
  const add = wanted.filter((id) => !have.has(id));
  const remove = current.filter((id) => !want.has(id));
  // In the order a read gives (added, then id): those added now come last, all added at the same moment.
  const members = [...current.filter((id) => want.has(id)), ...[...add].sort()];
  return { fields: { displayName: input.displayName, externalId: input.externalId }, add, remove, members };
}

/**
 * Adds and removes by id, applied in order to the members they name alone (each id's membership read as it is):
 * the same difference the whole list gives, in time that grows with the ids named, not with the group. Only
 * those people's bindings can change (the group's name, which decides its mappings, stays).
 */
async function differenceByIds(tx: Database, groupId: string, edits: MemberEdit[], fields: GroupFields): Promise<MemberDifference> {
  const touched = [...new Set(edits.flatMap((edit) => edit.ids))];
  const before = (await groupMemberIds(tx, [groupId], touched)).get(groupId) ?? [];
  const had = new Set(before);
  const after = withMemberChanges(before, edits);
  const kept = new Set(after);
  return { fields, add: after.filter((id) => !had.has(id)), remove: before.filter((id) => !kept.has(id)), touched };
}

/**
 * Whether a change keeps the group's name as its mappings read it (in any case): the bindings of members it does
 * not name stay as they are. A rename may change which mappings apply, to every member.
 */
const keepsName = (row: GroupRow, fields: GroupFields) => row.displayName.toLowerCase() === fields.displayName.toLowerCase();

/** The group as written, "subject to the attributes query parameter" (RFC 7644 §3.5.2). */
async function writtenAnswer(c: ScimContext, written: Written, attributes: string[] | null, excluded: string[] | null): Promise<Response> {
  return scimJson(c, project(await resourceOf(c, written.row, written.members), attributes, excluded));
}

/** A group's resource, its members named (their display names read now), or without them (null). */
async function resourceOf(c: ScimContext, row: GroupRow, members: string[] | null): Promise<Record<string, unknown>> {
  if (!members) return groupResource(row, null, baseUrl(c));
  const names = await displayNames(c.get("deps").db, c.get("scim").organizationId, members);
  return groupResource(row, members.map((value) => ({ value, display: names.get(value) })), baseUrl(c));
}

export async function listGroupsHandler(c: ScimContext): Promise<Response> {
  const page = paging(c);
  const filter = c.req.query("filter");
  const { db } = c.get("deps");
  const scim = c.get("scim");
  const attributes = attributeList(c.req.query("attributes"));
  const excluded = attributeList(c.req.query("excludedAttributes"));
  const { total, rows } = await listGroups(db, scim.integrationId, filter?.trim() ? filter : undefined, page);
  const base = baseUrl(c);
  let resources: unknown[];
  if (wantsMembers(attributes, excluded)) {
    const members = await groupMemberIds(db, rows.map((r) => r.id));
    const names = await displayNames(db, scim.organizationId, [...new Set([...members.values()].flat())]);
    resources = rows.map((r) => project(groupResource(r, (members.get(r.id) ?? []).map((value) => ({ value, display: names.get(value) })), base), attributes, excluded));
  } else resources = rows.map((r) => project(groupResource(r, null, base), attributes, excluded));
  return listResponse(c, total, page.startIndex, resources);
}

export async function getGroup(c: ScimContext): Promise<Response> {
  const id = c.req.param("id")!;
  if (!UUID.test(id)) throw groupNotFound(id);
  const attributes = attributeList(c.req.query("attributes"));
  const excluded = attributeList(c.req.query("excludedAttributes"));
  return scimJson(c, project(await groupView(c, id, wantsMembers(attributes, excluded)), attributes, excluded));
}

export async function putGroup(c: ScimContext): Promise<Response> {
  const id = c.req.param("id")!;
  if (!UUID.test(id)) throw groupNotFound(id);
  const input = parseGroup(await readBody(c));
  const attributes = attributeList(c.req.query("attributes"));
  const excluded = attributeList(c.req.query("excludedAttributes"));
  // Members left out are not asserted (RFC 7644 §3.5.1): they stay, and so do the bindings they hold through the
  // group's mappings (the whole plan keeps the members for null). `members: []` or null empties the group.
  // The group as written (not read back: a deletion of the integration just after the commit would make a 404 of a
  // change the audit log records); `excludedAttributes=members` spares a large group's whole member list.
  const written = await replaceGroup(c, id, () => ({ whole: () => input }), "SCIM: Replace Group", wantsMembers(attributes, excluded));
  return writtenAnswer(c, written, attributes, excluded);
}

export async function patchGroup(c: ScimContext): Promise<Response> {
  const id = c.req.param("id")!;
  if (!UUID.test(id)) throw groupNotFound(id);
  const ops = patchOperations(await readBody(c), "Group");
  const attributes = attributeList(c.req.query("attributes"));
  const excluded = attributeList(c.req.query("excludedAttributes"));
  // RFC 7644 §3.5.2: a 200 with the resource (which MUST be the answer when `attributes` is asked), or a 204. Okta
  // and Entra ID take a 204, and send a PATCH per membership change: the group is not rendered for each one (its
  // members' names read, for a large group megabytes sent) unless the request names what it wants back.
  const answered = attributes !== null || excluded !== null;
  const split = groupMemberChanges(ops);
  const base = baseUrl(c);
  const written = await replaceGroup(
    c,
    id,
    (row): GroupPlan => {
      if (split) {
        // Members by their ids (as Okta and Entra ID send them), as a set; the rest (name, external id) by scim-patch.
        const { displayName, externalId } = parseGroup(applyPatch(groupResource(row, null, base), split.rest));
        const fields = { displayName, externalId };
        if (byIdsOnly(split.members) && keepsName(row, fields)) return { byIds: split.members, fields };
        return { whole: (members) => ({ ...fields, members: withMemberChanges(members, split.members) }) };
      }
      return {
        whole: (members) => {
          // Members named some other way (by display, a sub-attribute): scim-patch finds each value among them one by one.
          if (members.length > PATCH_LIMITS.values) {
            throw new ScimError(400, `a group of more than ${PATCH_LIMITS.values} members is changed by its members' values: members[value eq "id"], or a list of { "value": "id" }`, "invalidFilter");
          }
          const input = parseGroup(applyPatch(groupResource(row, members.map((value) => ({ value })), base), ops));
          return { ...input, members: input.members ?? [] };
        },
      };
    },
    "SCIM: Update Group",
    answered && wantsMembers(attributes, excluded),
  );
  if (!answered) return c.body(null, 204);
  return writtenAnswer(c, written, attributes, excluded);
}

export async function deleteGroupHandler(c: ScimContext): Promise<Response> {
  const id = c.req.param("id")!;
  const scim = c.get("scim");
  const row = UUID.test(id) ? await findGroup(c.get("deps").db, scim.integrationId, id) : undefined;
  if (!row) throw groupNotFound(id);
  await change(c, { action: "Delete", detail: "SCIM: Delete Group", targetType: "Group", targetIds: [row.id], targetNames: [row.displayName] }, async (tx) => {
    await deleteGroup(tx, row.id);
  });
  return c.body(null, 204);
}
