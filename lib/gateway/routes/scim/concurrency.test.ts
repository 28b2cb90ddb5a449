import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../store/client";
import { replaceRecoveryCodes } from "../../store/queries/mfa-factors";
import { removePerson } from "../../store/queries/people";
import { deleteProjectCascade } from "../../store/queries/projects";
import { deleteScimIntegrationRow } from "../../store/queries/scim";
import { roleBindings, roles, scimGroupMappings, scimGroupMembers, scimGroups, userRecoveryCodes, users } from "../../store/schema";
import { createTestGateway, opPath, type TestGateway } from "../../testing";

/**
 * Two changes at once of the same person, group or mappings, as an identity provider sends them in
 * parallel: each change reads, changes and writes while holding what it changes, so the second builds
 * on the first and nothing is lost. PGlite runs transactions one after the other, so these can only
 * fail on PostgreSQL (`npm run test:pg`), where they did before the locks (a suspension lost to a
 * concurrent rename in 22 of 25 tries).
 */

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ROUNDS = 8;

let t: TestGateway;
let org: string;
let integration: string;
let token: string;

type Json = Record<string, unknown>;

async function scim(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await t.gateway.app.request(`http://gateway.test/scim/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}

async function person(userName: string): Promise<string> {
  const made = await scim("POST", "/Users", { schemas: [USER], userName, name: { givenName: "First" }, active: true });
  expect(made.status).toBe(201);
  return String(made.body.id);
}

const patch = (path: string, Operations: unknown[]) => scim("PATCH", path, { schemas: [PATCH], Operations });

beforeAll(async () => {
  t = await createTestGateway();
  org = t.demo.organization_id;
  const res = await t.json<{ integration: { id: string }; api_key_info: { api_key: string } }>("owner", "POST", opPath("createSCIMIntegration", { org_id: org }), {
    body: { name: "Parallel IdP", identity_provider: "okta", token: { alias: "t", expires_at: new Date(Date.now() + 86_400_000).toISOString() } },
  });
  expect(res.status).toBe(200);
  integration = res.body.integration.id;
  token = res.body.api_key_info.api_key;
});
afterAll(() => t?.close());

describe("two changes at once", () => {
  it("of one person: a suspension and a rename both take effect", async () => {
    const id = await person("parallel.person@acme.example");
    for (let round = 0; round < ROUNDS; round++) {
      const [suspend, rename] = await Promise.all([
        patch(`/Users/${id}`, [{ op: "replace", path: "active", value: false }]),
        patch(`/Users/${id}`, [{ op: "replace", path: "name.givenName", value: `Round ${round}` }]),
      ]);
      expect([suspend.status, rename.status]).toEqual([200, 200]);
      const now = await scim("GET", `/Users/${id}`);
      expect({ active: now.body.active, givenName: (now.body.name as Json).givenName }).toEqual({ active: false, givenName: `Round ${round}` });
      expect((await patch(`/Users/${id}`, [{ op: "replace", path: "active", value: true }])).status).toBe(200);
    }
  });

  it("of one group: two member additions both stay", async () => {
    const people = await Promise.all(Array.from({ length: 2 * ROUNDS }, (_, i) => person(`parallel.member.${i}@acme.example`)));
    const group = await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Parallel", members: [] });
    expect(group.status).toBe(201);
    const gid = String(group.body.id);
    for (let round = 0; round < ROUNDS; round++) {
      const pair = [people[2 * round]!, people[2 * round + 1]!];
      const answers = await Promise.all(pair.map((value) => patch(`/Groups/${gid}`, [{ op: "add", path: "members", value: [{ value }] }])));
      expect(answers.map((a) => a.status)).toEqual([204, 204]);
    }
    const members = await t.gateway.store.db.select({ userId: scimGroupMembers.userId }).from(scimGroupMembers).where(eq(scimGroupMembers.groupId, gid));
    expect(members.map((m) => m.userId).sort()).toEqual([...people].sort());
  });

  it("of the group mappings: the result is one of the two lists, never both", async () => {
    const [viewer] = await t.gateway.store.db.select().from(roles).where(and(eq(roles.organizationId, org), eq(roles.roleName, "Billing Viewer")));
    const mapping = (group: string) => ({ group_display_name: group, role_id: viewer!.id, scope_type: "org", scope_object_id: org });
    const put = (group: string) => t.json<{ mappings: unknown[] }>("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: org, integration_id: integration }), { body: { mappings: [mapping(group)] } });
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await Promise.all([put(`ops-${round}`), put(`sales-${round}`)]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      const now = await t.json<{ mappings: Array<{ group_display_name: string }> }>("owner", "GET", opPath("getSCIMGroupMappings", { org_id: org, integration_id: integration }));
      expect(now.body.mappings.map((m) => m.group_display_name)).toHaveLength(1);
    }
  });
});

describe("a SCIM change and an IAM apply of one person at once", () => {
  it("both take effect: the account renamed (its home organization), suspended or not, and the bindings applied", async () => {
    const [admin] = await t.gateway.store.db.select().from(roles).where(and(eq(roles.organizationId, org), eq(roles.roleName, "Organization Admin")));
    const [viewer] = await t.gateway.store.db.select().from(roles).where(and(eq(roles.organizationId, org), eq(roles.roleName, "Billing Viewer")));
    const made = await scim("POST", "/Users", { schemas: [USER], userName: "renamed.while.bound@acme.example", displayName: "Round start", active: true });
    expect(made.status).toBe(201);
    const id = String(made.body.id);
    const direct = async () =>
      (await t.json<{ role_bindings: Array<{ id: string; role_id: string; via_group_id?: string }> }>("owner", "GET", `${opPath("listRoleBindings")}?user_id=${id}`)).body.role_bindings.filter((b) => !b.via_group_id);
    // What the person was given on arrival goes in the first round's apply.
    let previous = (await direct()).map((b) => b.id);
    for (let round = 0; round < ROUNDS; round++) {
      const role = (round % 2 ? admin : viewer)!.id;
      const suspend = round % 2 === 0;
      const [change, apply] = await Promise.all([
        patch(`/Users/${id}`, [{ op: "replace", path: "displayName", value: `Round ${round}` }, { op: "replace", path: "active", value: !suspend }]),
        t.json("owner", "POST", opPath("applyRoleBindings", { user_id: id }), {
          body: { bindings_to_create: [{ customer_id: id, role_id: role, scope_type: "org", scope_object_id: org }], bindings_to_delete: previous },
        }),
      ]);
      expect([change.status, apply.status]).toEqual([200, 200]);
      const now = await scim("GET", `/Users/${id}`);
      expect({ active: now.body.active, displayName: now.body.displayName }).toEqual({ active: !suspend, displayName: `Round ${round}` });
      const [account] = await t.gateway.store.db.select({ name: users.name }).from(users).where(eq(users.id, id));
      expect(account?.name).toBe(`Round ${round}`);
      const bindings = await direct();
      expect(bindings.map((b) => b.role_id)).toEqual([role]);
      previous = bindings.map((b) => b.id);
      if (suspend) expect((await patch(`/Users/${id}`, [{ op: "replace", path: "active", value: true }])).status).toBe(200);
    }
  });
});

describe("two recovery code sets at once", () => {
  it("leave one of them, never both", async () => {
    const db = t.gateway.store.db;
    const userId = t.demo.member.user_id;
    for (let round = 0; round < ROUNDS; round++) {
      const sets = [0, 1].map((n) => Array.from({ length: 10 }, (_, i) => `hash-${round}-${n}-${i}`));
      await Promise.all(sets.map((set) => replaceRecoveryCodes(db, userId, set)));
      const kept = (await db.select({ codeHash: userRecoveryCodes.codeHash }).from(userRecoveryCodes).where(eq(userRecoveryCodes.userId, userId))).map((r) => r.codeHash).sort();
      expect([sets[0]!.sort(), sets[1]!.sort()]).toContainEqual(kept);
    }
  });
});

describe("removing a person", () => {
  it("while a binding is being given to them leaves no binding behind: the binding waits and is refused, or came first and goes with them", async () => {
    const [admin] = await t.gateway.store.db.select().from(roles).where(and(eq(roles.organizationId, org), eq(roles.roleName, "Organization Admin")));
    const id = await person("removed.while.bound@acme.example");
    let held!: () => void;
    const removalHolds = new Promise<void>((resolve) => (held = resolve));
    const removal = t.gateway.store.db.transaction(async (tx) => {
      expect(await removePerson(tx as unknown as Database, org, id)).toBe(true);
      held();
      // Held while the apply runs (a PostgreSQL server serves both at once; PGlite runs them one after the other).
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    await removalHolds;
    const apply = t.json<{ message: string }>("owner", "POST", opPath("applyRoleBindings", { user_id: id }), {
      body: { bindings_to_create: [{ customer_id: id, role_id: admin!.id, scope_type: "org", scope_object_id: org }], bindings_to_delete: [] },
    });
    await removal;
    const answer = await apply;
    // Refused after waiting for the removal (a server runs both at once), or, the removal done first, the person is
    // of no organization of the caller's any more (PGlite runs one after the other).
    expect([
      [400, /not a member of the role's organization/.test(answer.body.message)],
      [404, answer.body.message === `user ${id} not found`],
    ]).toContainEqual([answer.status, true]);
    expect(await t.gateway.store.db.select().from(roleBindings).where(eq(roleBindings.userId, id))).toEqual([]);
  });

  it("while a SCIM group is made with them as a member leaves them in no group: the group waits and is refused", async () => {
    const id = await person("removed.while.grouped@acme.example");
    let held!: () => void;
    const removalHolds = new Promise<void>((resolve) => (held = resolve));
    const removal = t.gateway.store.db.transaction(async (tx) => {
      expect(await removePerson(tx as unknown as Database, org, id)).toBe(true);
      held();
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    await removalHolds;
    const made = scim("POST", "/Groups", { schemas: [GROUP], displayName: "Made during a removal", members: [{ value: id }] });
    await removal;
    const answer = await made;
    expect([answer.status, answer.body.scimType]).toEqual([400, "invalidValue"]);
    expect(await t.gateway.store.db.select().from(scimGroupMembers).where(eq(scimGroupMembers.userId, id))).toEqual([]);
  });

  it("takes them out of the organization's SCIM groups: the next sync binds them to nothing", async () => {
    const [viewer] = await t.gateway.store.db.select().from(roles).where(and(eq(roles.organizationId, org), eq(roles.roleName, "Billing Viewer")));
    const id = await person("leaving.member@acme.example");
    const group = await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Finance", members: [{ value: id }] });
    expect(group.status).toBe(201);
    const mappings = { mappings: [{ group_display_name: "Finance", role_id: viewer!.id, scope_type: "org", scope_object_id: org }] };
    expect((await t.json("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: org, integration_id: integration }), { body: mappings })).status).toBe(200);
    const bindingsOf = () => t.gateway.store.db.select().from(roleBindings).where(eq(roleBindings.userId, id));
    expect(await bindingsOf()).toHaveLength(2);
    expect((await t.json("owner", "DELETE", opPath("removeOrganizationPerson", { org_id: org, user_id: id }))).status).toBe(204);
    expect(await t.gateway.store.db.select().from(scimGroupMembers).where(eq(scimGroupMembers.userId, id))).toEqual([]);
    // The group's next sync (a mapping change syncs every group) gives the removed person nothing back.
    expect((await t.json("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: org, integration_id: integration }), { body: mappings })).status).toBe(200);
    expect(await bindingsOf()).toEqual([]);
  });
});

describe("a change of an integration's groups or mappings while the integration is deleted", () => {
  /** Microtask counts the second request starts after the deletion began: on PGlite, from "it runs first" to "the deletion does". */
  const DELAYS = Array.from({ length: 32 }, (_, i) => i * 8);
  const onPGlite = !process.env.TEST_DATABASE_URL;

  async function doomed(name: string): Promise<{ id: string; token: string }> {
    const res = await t.json<{ integration: { id: string }; api_key_info: { api_key: string } }>("owner", "POST", opPath("createSCIMIntegration", { org_id: org }), {
      body: { name, identity_provider: "okta", token: { alias: "t", expires_at: new Date(Date.now() + 86_400_000).toISOString() } },
    });
    expect(res.status).toBe(200);
    return { id: res.body.integration.id, token: res.body.api_key_info.api_key };
  }

  const scimAs = (bearer: string, method: string, path: string, body?: unknown) =>
    t.gateway.app.request(`http://gateway.test/scim/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, "content-type": "application/scim+json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  const deleteIntegration = (id: string) => t.op("owner", "deleteSCIMIntegration", { params: { org_id: org, integration_id: id } });

  /**
   * A deletion of the integration that has taken its locks and waits before it commits (on PostgreSQL, others run
   * meanwhile; PGlite runs them after it): `committed` settles once it has.
   */
  async function deletionInFlight(id: string): Promise<{ committed: Promise<void> }> {
    let holding!: () => void;
    const holds = new Promise<void>((resolve) => (holding = resolve));
    const committed = t.gateway.store.db.transaction(async (tx) => {
      expect(await deleteScimIntegrationRow(tx as unknown as Database, org, id)).toBe(true);
      holding();
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    await holds;
    return { committed };
  }

  async function viewerMappings() {
    const [viewer] = await t.gateway.store.db.select().from(roles).where(and(eq(roles.organizationId, org), eq(roles.roleName, "Billing Viewer")));
    return { mappings: [{ group_display_name: "Racing", role_id: viewer!.id, scope_type: "org", scope_object_id: org }] };
  }

  it("replacing the mappings is done before the deletion or answered 404 (integration not found), never 500", async () => {
    const body = await viewerMappings();
    for (const delay of DELAYS) {
      const doomedOne = await doomed(`Mapped while deleted ${delay}`);
      const deleted = deleteIntegration(doomedOne.id);
      for (let i = 0; i < delay; i++) await Promise.resolve();
      const put = t.json<{ message: string; reason: string }>("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: org, integration_id: doomedOne.id }), { body });
      const [answer, deletion] = await Promise.all([put, deleted]);
      expect(deletion.status).toBe(204);
      expect({ delay, status: answer.status }).toEqual({ delay, status: answer.status === 200 ? 200 : 404 });
      if (answer.status === 404) expect(answer.body.message).toBe("SCIM integration not found in this organization");
    }
  }, 60_000);

  it("replacing the mappings while the deletion holds the integration waits for it and answers 404", async () => {
    const body = await viewerMappings();
    const doomedOne = await doomed("Mapped while deletion holds it");
    const deletion = await deletionInFlight(doomedOne.id);
    const put = t.json<{ message: string }>("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: org, integration_id: doomedOne.id }), { body });
    await deletion.committed;
    const answer = await put;
    expect(answer.status).toBe(404);
    expect(answer.body.message).toBe("SCIM integration not found in this organization");
  });

  it("a SCIM group made by a token of it is made before the deletion, or refused as the deleted token is (401), never 500", async () => {
    const seen = new Set<number>();
    for (const delay of DELAYS) {
      const doomedOne = await doomed(`Grouped while deleted ${delay}`);
      // The token is known (as an identity provider's earlier call leaves it) before the deletion starts.
      expect((await scimAs(doomedOne.token, "GET", "/Groups")).status).toBe(200);
      const deleted = deleteIntegration(doomedOne.id);
      for (let i = 0; i < delay; i++) await Promise.resolve();
      const made = scimAs(doomedOne.token, "POST", "/Groups", { schemas: [GROUP], displayName: `Racing ${delay}`, members: [] });
      const [answer, deletion] = await Promise.all([made, deleted]);
      expect(deletion.status).toBe(204);
      const text = await answer.text();
      expect({ delay, status: answer.status, text: answer.status >= 500 ? text : "" }).toMatchObject({ delay, text: "" });
      // Made, or refused: a group made is never answered as missing (read back after the deletion took it).
      expect({ delay, status: answer.status }).toEqual({ delay, status: answer.status === 201 ? 201 : 401 });
      if (answer.status === 401) {
        expect(answer.headers.get("www-authenticate")).toBe("Bearer");
        expect(JSON.parse(text)).toMatchObject({ status: "401", detail: "the token is unknown, deleted or expired" });
      }
      seen.add(answer.status);
    }
    expect(await t.gateway.store.db.select().from(scimGroups).where(eq(scimGroups.displayName, "Racing 0"))).toEqual([]);
    // The delays span both orders (the group first; the deletion before the token is checked), and so the time between.
    if (onPGlite) expect([...seen]).toEqual(expect.arrayContaining([201, 401]));
  }, 120_000);

  it("a SCIM group changed by a token of it is changed before the deletion, or refused (401): never answered as missing", async () => {
    const seen = new Set<number>();
    for (const delay of DELAYS) {
      const doomedOne = await doomed(`Changed while deleted ${delay}`);
      const made = await scimAs(doomedOne.token, "POST", "/Groups", { schemas: [GROUP], displayName: `Renamed ${delay}`, members: [] });
      expect(made.status).toBe(201);
      const { id } = (await made.json()) as { id: string };
      const deleted = deleteIntegration(doomedOne.id);
      for (let i = 0; i < delay; i++) await Promise.resolve();
      // The group as written asked for (a PATCH answers 204 otherwise).
      const changed = scimAs(doomedOne.token, "PATCH", `/Groups/${id}?attributes=displayName`, { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: `Renamed again ${delay}` }] });
      const [answer, deletion] = await Promise.all([changed, deleted]);
      expect(deletion.status).toBe(204);
      expect({ delay, status: answer.status }).toEqual({ delay, status: answer.status === 200 ? 200 : 401 });
      if (answer.status === 200) expect(((await answer.json()) as { displayName: string }).displayName).toBe(`Renamed again ${delay}`);
      seen.add(answer.status);
    }
    if (onPGlite) expect([...seen]).toEqual(expect.arrayContaining([200, 401]));
  }, 120_000);

  it("a SCIM group made while the deletion holds the integration waits for it and is refused (401)", async () => {
    const doomedOne = await doomed("Grouped while deletion holds it");
    expect((await scimAs(doomedOne.token, "GET", "/Groups")).status).toBe(200);
    const deletion = await deletionInFlight(doomedOne.id);
    const made = scimAs(doomedOne.token, "POST", "/Groups", { schemas: [GROUP], displayName: "Held back", members: [] });
    await deletion.committed;
    const answer = await made;
    expect({ status: answer.status, body: JSON.parse(await answer.text()) as unknown }).toMatchObject({ status: 401, body: { detail: "the token is unknown, deleted or expired" } });
    expect(await t.gateway.store.db.select().from(scimGroups).where(eq(scimGroups.displayName, "Held back"))).toEqual([]);
  });
});

describe("a SCIM user provisioned while the integration is deleted", () => {
  it("waits for the deletion and is refused as the deleted token is (401): no person under an integration that is gone", async () => {
    const made = await t.json<{ integration: { id: string }; api_key_info: { api_key: string } }>("owner", "POST", opPath("createSCIMIntegration", { org_id: org }), {
      body: { name: "Provisioning while deleted", identity_provider: "okta", token: { alias: "t", expires_at: new Date(Date.now() + 86_400_000).toISOString() } },
    });
    expect(made.status).toBe(200);
    const doomedId = made.body.integration.id;
    const bearer = made.body.api_key_info.api_key;
    const post = () =>
      t.gateway.app.request("http://gateway.test/scim/v2/Users", {
        method: "POST",
        headers: { authorization: `Bearer ${bearer}`, "content-type": "application/scim+json" },
        body: JSON.stringify({ schemas: [USER], userName: "provisioned.while.deleted@acme.example", active: true }),
      });
    let holding!: () => void;
    const holds = new Promise<void>((resolve) => (holding = resolve));
    const committed = t.gateway.store.db.transaction(async (tx) => {
      expect(await deleteScimIntegrationRow(tx as unknown as Database, org, doomedId)).toBe(true);
      holding();
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    await holds;
    const answer = post();
    await committed;
    const res = await answer;
    expect({ status: res.status, body: JSON.parse(await res.text()) as unknown }).toMatchObject({ status: 401, body: { detail: "the token is unknown, deleted or expired" } });
    expect(await t.gateway.store.db.select().from(users).where(eq(users.email, "provisioned.while.deleted@acme.example"))).toEqual([]);
  });
});

describe("a project deleted while a role binding or a SCIM group mapping onto it is made", () => {
  async function projectMember(): Promise<string> {
    const [role] = await t.gateway.store.db.select().from(roles).where(and(eq(roles.organizationId, org), eq(roles.roleName, "Project Member")));
    return role!.id;
  }

  async function newProject(name: string): Promise<string> {
    const made = await t.json<{ project: { id: string } }>("owner", "POST", opPath("createProject"), { body: { organization_id: org, name } });
    expect(made.status).toBe(200);
    return made.body.project.id;
  }

  /** A deletion of the project that has taken its row and waits before it commits (PGlite runs the others after it). */
  async function deletionInFlight(projectId: string): Promise<{ committed: Promise<void> }> {
    let holding!: () => void;
    const holds = new Promise<void>((resolve) => (holding = resolve));
    const committed = t.gateway.store.db.transaction(async (tx) => {
      expect(await deleteProjectCascade(tx as unknown as Database, projectId)).toBe(true);
      holding();
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    await holds;
    return { committed };
  }

  it("takes the mappings onto it: the group's next member gets no role on a project that is gone", async () => {
    const projectId = await newProject("mapped-then-deleted");
    const body = { mappings: [{ group_display_name: "Deleted project team", role_id: await projectMember(), scope_type: "project", scope_object_id: projectId }] };
    expect((await t.json("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: org, integration_id: integration }), { body })).status).toBe(200);
    expect((await t.op("owner", "deleteProject", { params: { project_id: projectId } })).status).toBe(200);
    expect(await t.gateway.store.db.select().from(scimGroupMappings).where(eq(scimGroupMappings.scopeObjectId, projectId))).toEqual([]);
    const id = await person("joins.after.deletion@acme.example");
    expect((await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Deleted project team", members: [{ value: id }] })).status).toBe(201);
    expect(await t.gateway.store.db.select().from(roleBindings).where(eq(roleBindings.scopeObjectId, projectId))).toEqual([]);
  });

  it("a role binding onto it made while the deletion holds it is refused (400 naming the scope), never left behind", async () => {
    const projectId = await newProject("bound-while-deleted");
    const userId = t.demo.member.user_id;
    const body = { bindings_to_create: [{ customer_id: userId, role_id: await projectMember(), scope_type: "project", scope_object_id: projectId }], bindings_to_delete: [] };
    const { committed } = await deletionInFlight(projectId);
    const apply = t.json<{ message: string }>("owner", "POST", opPath("applyRoleBindings", { user_id: userId }), { body });
    await committed;
    const answer = await apply;
    expect({ status: answer.status, message: answer.body.message }).toEqual({ status: 400, message: `bindings_to_create[0].scope_object_id: project ${projectId} not found` });
    expect(await t.gateway.store.db.select().from(roleBindings).where(eq(roleBindings.scopeObjectId, projectId))).toEqual([]);
  });

  it("a member added to a group mapped onto it while the deletion holds it gets no binding onto it", async () => {
    const projectId = await newProject("synced-while-deleted");
    const body = { mappings: [{ group_display_name: "Team of a deleted project", role_id: await projectMember(), scope_type: "project", scope_object_id: projectId }] };
    expect((await t.json("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: org, integration_id: integration }), { body })).status).toBe(200);
    const group = await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Team of a deleted project", members: [] });
    expect(group.status).toBe(201);
    const id = await person("joins.while.deleted@acme.example");
    const { committed } = await deletionInFlight(projectId);
    const added = patch(`/Groups/${String(group.body.id)}`, [{ op: "add", path: "members", value: [{ value: id }] }]);
    await committed;
    expect((await added).status).toBe(204);
    expect(await t.gateway.store.db.select().from(roleBindings).where(eq(roleBindings.scopeObjectId, projectId))).toEqual([]);
  });

  it("a mapping onto it made while the deletion holds it is refused (400 naming the mapping), never left behind", async () => {
    const projectId = await newProject("mapped-while-deleted");
    const body = { mappings: [{ group_display_name: "Racing a deletion", role_id: await projectMember(), scope_type: "project", scope_object_id: projectId }] };
    const { committed } = await deletionInFlight(projectId);
    const put = t.json<{ message: string }>("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: org, integration_id: integration }), { body });
    await committed;
    const answer = await put;
    expect({ status: answer.status, message: answer.body.message }).toEqual({ status: 400, message: `body.mappings[0].scope_object_id: project ${projectId} not found` });
    expect(await t.gateway.store.db.select().from(scimGroupMappings).where(eq(scimGroupMappings.scopeObjectId, projectId))).toEqual([]);
  });
});
