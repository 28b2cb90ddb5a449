import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, like, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { displayNames, peopleAmong } from "../../store/queries/scim-service";
import { MAX_PARAMETERS } from "../../store/queries/long-lists";
import { describeBindingChanges } from "../../store/queries/scim-group-bindings";
import { roleBindings, roles, scimGroupMembers, users } from "../../store/schema";
import { createTestGateway, opPath, type TestGateway } from "../../testing";
import { applyPatch, groupMemberChanges, patchOperations, withMemberChanges } from "./patch";
import { groupResource } from "./resources";

/** SCIM groups of the size a large customer's identity provider keeps: tens of thousands of members. */

const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

let t: TestGateway;
let orgId: string;
let token: string;
let integrationId: string;
/** 5,000 people of the organization, by id. */
let staff: string[];

async function scim(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { Accept: "application/scim+json", Authorization: `Bearer ${token}` };
  if (body !== undefined) headers["Content-Type"] = "application/scim+json";
  const res = await t.gateway.app.request(`http://127.0.0.1/scim/v2${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const patch = (groupId: string, Operations: unknown[], query = "") => scim("PATCH", `/Groups/${groupId}${query}`, { schemas: [PATCH], Operations });
const values = (ids: string[]) => ids.map((value) => ({ value }));
const membersOf = async (groupId: string) =>
  (await t.gateway.store.db.select({ userId: scimGroupMembers.userId }).from(scimGroupMembers).where(eq(scimGroupMembers.groupId, groupId))).map((r) => r.userId).sort();
const bindingsOf = async (groupId: string) => (await t.gateway.store.db.select({ id: roleBindings.id }).from(roleBindings).where(eq(roleBindings.viaGroupId, groupId))).length;

beforeAll(async () => {
  t = await createTestGateway();
  orgId = t.demo.organization_id;
  const res = await t.json<{ integration: { id: string }; api_key_info: { api_key: string } }>("owner", "POST", opPath("createSCIMIntegration", { org_id: orgId }), {
    body: { name: "Entra", identity_provider: "azure-ad", token: { alias: "t", expires_at: new Date(Date.now() + 86_400_000).toISOString() } },
  });
  integrationId = res.body.integration.id;
  token = res.body.api_key_info.api_key;
  // 5,000 people, written by the store in two statements (one SCIM POST each would take the test's time).
  const { db } = t.gateway.store;
  await db.execute(sql`insert into users (id, email, name) select gen_random_uuid()::text, 'staff' || g || '@large.example', 'Staff ' || g from generate_series(1, 5000) g`);
  await db.execute(sql`insert into memberships (organization_id, user_id, relation, source) select ${orgId}, u.id, 'member', 'scim' from users u where u.email like 'staff%@large.example'`);
  staff = (await db.select({ id: users.id }).from(users).where(like(users.email, "staff%@large.example")).orderBy(asc(users.id))).map((r) => r.id);
  expect(staff).toHaveLength(5_000);
}, 120_000);
afterAll(() => t.close());

describe("a large group over SCIM", () => {
  it("takes 5,000 members in one Entra ID PATCH with two role mappings (10,000 bindings: more parameters than one statement may bind), and gives them up", async () => {
    const { db } = t.gateway.store;
    const mapped = (await db.select().from(roles).where(and(eq(roles.organizationId, orgId), inArray(roles.roleName, ["Auditor", "Billing Viewer"])))).map((r) => r.id);
    expect(mapped).toHaveLength(2);
    const mappings = mapped.map((role_id) => ({ group_display_name: "All staff", role_id, scope_type: "org", scope_object_id: orgId }));
    expect((await t.call("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: orgId, integration_id: integrationId }), { body: { mappings } })).status).toBe(200);
    const group = await scim("POST", "/Groups", { schemas: [GROUP], displayName: "All staff" });
    expect(group.status).toBe(201);
    const id = String(group.body.id);
    expect(10_000 * 7).toBeGreaterThan(MAX_PARAMETERS);

    const parts = Array.from({ length: 5 }, (_, i) => staff.slice(i * 1000, (i + 1) * 1000));
    const added = await patch(id, parts.map((part) => ({ op: "Add", path: "members", value: values(part) })), "?excludedAttributes=members");
    expect(added.status, JSON.stringify(added.body).slice(0, 300)).toBe(200);
    // The answer honours excludedAttributes: a large group's members are not sent back with every change.
    expect(added.body).toMatchObject({ id, displayName: "All staff" });
    expect(added.body).not.toHaveProperty("members");
    expect(await membersOf(id)).toEqual([...staff].sort());
    expect(await bindingsOf(id)).toBe(10_000);

    // Entra ID's removal: path "members" with the values; and Okta's, one filter per member.
    const removed = await patch(
      id,
      [{ op: "Remove", path: "members", value: values(staff.slice(0, 1500)) }, ...staff.slice(1500, 1510).map((value) => ({ op: "remove", path: `members[value eq "${value}"]` }))],
      "?attributes=members",
    );
    expect(removed.status).toBe(200);
    expect((removed.body.members as unknown[]).length).toBe(3_490);
    expect(await membersOf(id)).toEqual(staff.slice(1510).sort());
    expect(await bindingsOf(id)).toBe(2 * 3_490);

    // Okta's full list, longer than the 1,000 values any other operation may hold.
    // (Named under the core schema's URN, as RFC 7644 §3.10 allows.)
    const replaced = await patch(id, [{ op: "replace", path: `${GROUP}:members`, value: values(staff.slice(0, 1500)) }], "?attributes=displayName");
    expect(replaced.status).toBe(200);
    expect(Object.keys(replaced.body).sort()).toEqual(["displayName", "id", "schemas"]);
    expect(await membersOf(id)).toEqual(staff.slice(0, 1500).sort());

    // Members named any other way are found by scim-patch one by one: not in a group this large.
    const byDisplay = await patch(id, [{ op: "remove", path: 'members[display eq "Staff 1"]' }]);
    expect(byDisplay.status).toBe(400);
    expect(byDisplay.body).toMatchObject({ scimType: "invalidFilter" });
    expect(String(byDisplay.body.detail)).toContain('members[value eq "id"]');

    // A remove of members with a null value (unassigned) empties the group, as one with no value does.
    const emptied = await patch(id, [{ op: "Remove", path: "members", value: null }]);
    expect(emptied.status).toBe(204);
    expect(await membersOf(id)).toEqual([]);
    expect(await bindingsOf(id)).toBe(0);
  }, 120_000);

  it("applies member operations in their order, with the name changed beside them", async () => {
    const group = await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Order", members: values(staff.slice(0, 3)) });
    const id = String(group.body.id);
    const [a, b, c, d] = staff as [string, string, string, string];
    const res = await patch(
      id,
      [
        { op: "add", path: "members", value: values([d]) },
        { op: "remove", path: `members[value eq "${a}"]` },
        { op: "replace", value: { displayName: "Order renamed", members: values([b, c, d]) } },
        { op: "remove", path: "members", value: values([c]) },
        { op: "add", value: { members: values([a]) } },
      ],
      "?attributes=displayName",
    );
    expect(res.status).toBe(200);
    expect(res.body.displayName).toBe("Order renamed");
    expect(await membersOf(id)).toEqual([a, b, d].sort());
    // A member that is not a person of the organization refuses the whole change.
    const stranger = await patch(id, [
      { op: "remove", path: "members", value: values([a]) },
      { op: "add", path: "members", value: values([randomUUID()]) },
    ]);
    expect(stranger.status).toBe(400);
    expect(await membersOf(id)).toEqual([a, b, d].sort());
    const malformed = await patch(id, [{ op: "add", path: "members", value: [{ display: "no value" }] }]);
    expect(malformed).toMatchObject({ status: 400, body: { scimType: "invalidValue" } });
  });

  it("reads the people among a list longer than one statement may bind", async () => {
    const { db } = t.gateway.store;
    const strangers = Array.from({ length: MAX_PARAMETERS + 10 }, () => randomUUID());
    const asked = [...strangers.slice(0, 30_000), staff[0]!, staff[1]!, ...strangers.slice(30_000)];
    expect([...(await peopleAmong(db, orgId, asked))].sort()).toEqual([staff[0]!, staff[1]!].sort());
    const names = await displayNames(db, orgId, asked);
    expect(names.size).toBe(2);
    expect(names.get(staff[0]!)).toMatch(/^Staff \d+$/);
    // A group mapping's answer names every binding it makes: as many as a group's members.
    const changes = asked.map((userId) => ({ userId, groupId: randomUUID(), roleId: randomUUID(), scopeType: "org", scopeObjectId: orgId }));
    const described = await describeBindingChanges(db, changes);
    expect(described).toHaveLength(asked.length);
    expect(described.filter((d) => d.email.endsWith("@large.example")).map((d) => d.user_id).sort()).toEqual([staff[0]!, staff[1]!].sort());
  });
});

describe("a member change of a large mapped group", () => {
  const NAME = "Mapped staff";
  const RENAMED = "Mapped staff renamed";
  const TWIN = "Twin staff";
  let gid: string;
  let twin: string;
  let auditor: string;
  let viewer: string;
  /** The group's members; the people of the organization in none of the two groups. */
  let members: string[];
  let spares: string[];
  const bindingRows = async (groupId: string) =>
    t.gateway.store.db.select({ id: roleBindings.id, userId: roleBindings.userId, roleId: roleBindings.roleId }).from(roleBindings).where(eq(roleBindings.viaGroupId, groupId));
  const byId = (rows: Array<{ id: string }>) => rows.map((r) => r.id).sort();
  const fill = async (groupId: string) => {
    for (let i = 0; i < members.length; i += 1_000) expect((await patch(groupId, [{ op: "add", path: "members", value: values(members.slice(i, i + 1_000)) }])).status).toBe(204);
  };

  beforeAll(async () => {
    const { db } = t.gateway.store;
    const named = async (roleName: string) => (await db.select().from(roles).where(and(eq(roles.organizationId, orgId), eq(roles.roleName, roleName))))[0]!.id;
    [auditor, viewer] = [await named("Auditor"), await named("Billing Viewer")];
    const mapping = (group_display_name: string, role_id: string) => ({ group_display_name, role_id, scope_type: "org", scope_object_id: orgId });
    const mappings = [mapping(NAME, auditor), mapping(RENAMED, viewer), mapping(TWIN, auditor)];
    expect((await t.call("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: orgId, integration_id: integrationId }), { body: { mappings } })).status).toBe(200);
    members = staff.slice(0, 4_990);
    spares = staff.slice(4_990);
    gid = String((await scim("POST", "/Groups", { schemas: [GROUP], displayName: NAME })).body.id);
    twin = String((await scim("POST", "/Groups", { schemas: [GROUP], displayName: TWIN })).body.id);
    await fill(gid);
    await fill(twin);
    expect(await bindingsOf(gid)).toBe(members.length);
  }, 120_000);

  it("adds and removes a member by id: that person's binding alone is made and taken, every other binding row left as it was", async () => {
    const { db } = t.gateway.store;
    const [spare] = spares as [string];
    const before = await bindingRows(gid);
    expect(before).toHaveLength(members.length);
    // One member's binding gone behind the service's back: a change that names other people reads and syncs
    // those people alone, so it stays gone (the whole group re-synced would make it again).
    const drifted = before.find((b) => b.userId === members[0])!;
    await db.delete(roleBindings).where(eq(roleBindings.id, drifted.id));
    const others = byId(before.filter((b) => b.id !== drifted.id));

    const added = await patch(gid, [{ op: "add", path: "members", value: values([spare]) }]);
    expect(added.status).toBe(204);
    const during = await bindingRows(gid);
    const made = during.filter((b) => !others.includes(b.id));
    expect(made.map(({ userId, roleId }) => ({ userId, roleId }))).toEqual([{ userId: spare, roleId: auditor }]);
    // The others' rows are the same rows (ids), not deleted and made again.
    expect(byId(during.filter((b) => b.id !== made[0]!.id))).toEqual(others);

    const removed = await patch(gid, [{ op: "remove", path: `members[value eq "${spare}"]` }]);
    expect(removed.status).toBe(204);
    expect(byId(await bindingRows(gid))).toEqual(others);
    expect(await membersOf(gid)).toEqual([...members].sort());

    // A change that names the member (added again: already one) brings their binding back.
    expect((await patch(gid, [{ op: "add", path: "members", value: values([members[0]!]) }])).status).toBe(204);
    const repaired = await bindingRows(gid);
    expect(repaired.filter((b) => b.userId === members[0]).map((b) => b.roleId)).toEqual([auditor]);
    expect(byId(repaired.filter((b) => b.userId !== members[0]))).toEqual(others);
  });

  it("ends adds, removes and re-adds of the same ids in one PATCH where the whole list does: the members withMemberChanges gives, bound as their mapping says", async () => {
    const [p, q] = spares as [string, string];
    const [m, n] = members as [string, string];
    const Operations = [
      { op: "add", path: "members", value: values([p, q, m]) },
      { op: "remove", path: "members", value: values([p, m]) },
      { op: "add", value: { members: values([p]) } },
      { op: "remove", path: `members[value eq "${q}"]` },
      { op: "Remove", path: "members", value: values([n]) },
      { op: "add", path: "members", value: values([m]) },
      { op: "remove", path: `members[value eq "${n}"]` },
    ];
    const changes = groupMemberChanges(patchOperations({ schemas: [PATCH], Operations }, "Group"))!.members;
    const expected = withMemberChanges(await membersOf(gid), changes).sort();
    expect(expected).toEqual([...members.filter((id) => id !== n), p].sort());

    expect((await patch(gid, Operations)).status).toBe(204);
    // The twin through the whole list's path: its members replaced with themselves first (a replace reads them all).
    expect((await patch(twin, [{ op: "replace", path: "members", value: values(await membersOf(twin)) }, ...Operations])).status).toBe(204);
    for (const groupId of [gid, twin]) {
      expect(await membersOf(groupId)).toEqual(expected);
      const bound = await bindingRows(groupId);
      expect(bound.map((b) => b.userId).sort()).toEqual(expected);
      expect(new Set(bound.map((b) => b.roleId))).toEqual(new Set([auditor]));
    }
  });

  it("re-syncs every member's bindings when the same PATCH renames the group; a change of case alone keeps its mappings and its bindings", async () => {
    const [, , r, late] = spares as [string, string, string, string];
    const before = await bindingRows(gid);
    const cased = await patch(gid, [
      { op: "replace", path: "displayName", value: NAME.toUpperCase() },
      { op: "add", path: "members", value: values([r]) },
    ]);
    expect(cased.status).toBe(204);
    expect((await scim("GET", `/Groups/${gid}?excludedAttributes=members`)).body.displayName).toBe(NAME.toUpperCase());
    const kept = await bindingRows(gid);
    expect(byId(kept.filter((b) => b.userId !== r))).toEqual(byId(before));
    expect(kept.filter((b) => b.userId === r).map((b) => b.roleId)).toEqual([auditor]);

    const renamed = await patch(gid, [
      { op: "replace", path: "displayName", value: RENAMED },
      { op: "add", path: "members", value: values([late]) },
    ]);
    expect(renamed.status).toBe(204);
    const now = await membersOf(gid);
    expect(now).toContain(late);
    const bound = await bindingRows(gid);
    // Every member's binding follows the new name's mapping: the old role's gone, the new one's made.
    expect(bound.map((b) => b.userId).sort()).toEqual(now);
    expect(new Set(bound.map((b) => b.roleId))).toEqual(new Set([viewer]));
  });
});

describe("member changes in memory", () => {
  it("removes a thousand members of a group of fifty thousand as a set, not one scim-patch pass per member", () => {
    const members = Array.from({ length: 50_000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`);
    const ops = patchOperations({ schemas: [PATCH], Operations: [{ op: "Remove", path: "members", value: values(members.slice(0, 1000)) }] }, "Group");
    const split = groupMemberChanges(ops);
    expect(split?.rest).toEqual([]);
    expect(withMemberChanges(members, split!.members)).toEqual(members.slice(1000));
    // What scim-patch makes of the same operations, on a group small enough for it: the same.
    const few = members.slice(0, 1200);
    const row = { id: "g", organizationId: "o", integrationId: "i", displayName: "G", externalId: null, createdAt: new Date(0), updatedAt: new Date(0) };
    const byLibrary = applyPatch(groupResource(row, values(few), "http://x"), ops) as { members: Array<{ value: string }> };
    expect(withMemberChanges(few, split!.members)).toEqual(byLibrary.members.map((m) => m.value));
  });

  it("empties the members on a remove with no value or a null one", () => {
    for (const Operations of [[{ op: "remove", path: "members" }], [{ op: "Remove", path: "Members", value: null }]]) {
      const split = groupMemberChanges(patchOperations({ schemas: [PATCH], Operations }, "Group"));
      expect(split, JSON.stringify(Operations)).toEqual({ members: [{ op: "clear" }], rest: [] });
      expect(withMemberChanges(["a", "b"], split!.members)).toEqual([]);
    }
  });

  it("leaves to scim-patch what names members another way", () => {
    for (const Operations of [[{ op: "remove", path: 'members[display eq "x"]' }], [{ op: "replace", path: "members.display", value: "x" }]]) {
      expect(groupMemberChanges(patchOperations({ schemas: [PATCH], Operations }, "Group")), JSON.stringify(Operations)).toBeNull();
    }
  });
});
