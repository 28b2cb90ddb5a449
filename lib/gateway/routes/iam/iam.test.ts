import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memberships, projects, roleBindings } from "../../store/schema";
import { createTestGateway, type TestGateway, type Who } from "../../testing";

/** A fresh store with the whole demo seeded; slow on a busy machine. */
const SETUP_MS = 180_000;

let t: TestGateway;
let globexId: string;
/** Demo organization: role name → id, project name → id. */
const role: Record<string, string> = {};
const project: Record<string, string> = {};
beforeAll(async () => {
  t = await createTestGateway();
  const roles = await t.opJson<{ roles: Role[] }>("owner", "listRoles");
  for (const r of roles.body.roles) role[r.role_name] = r.id;
  const rows = await t.gateway.store.db.select().from(projects).where(eq(projects.organizationId, t.demo.organization_id));
  for (const row of rows) project[row.name] = row.id;
  globexId = await t.outsiderOrganizationId();
}, SETUP_MS);
afterAll(() => t.close());

interface Role {
  id: string;
  role_name: string;
  allowed_scopes: string[];
  org_id: string;
  description: string;
}
interface Binding {
  id: string;
  customer_id: string;
  role_id: string;
  role_name: string;
  scope_type: string;
  scope_object_id: string;
}
interface ErrorBody {
  code: string;
  message: string;
  error_id: string;
  reason: string;
}

const UNKNOWN = "00000000-0000-4000-8000-000000000000";

const bindings = (who: Who, query: Record<string, string> = {}) =>
  t.opJson<{ role_bindings: Binding[] } & ErrorBody>(who, "listRoleBindings", { query });
const apply = (who: Who, userId: string, body: unknown) => t.opJson<ErrorBody>(who, "applyRoleBindings", { params: { user_id: userId }, body });

/** Every binding in the store, of every organization. */
const allBindings = () => t.gateway.store.db.select().from(roleBindings).orderBy(asc(roleBindings.id));

const input = (userId: string, roleName: string, scopeType: "org" | "project", scopeObjectId: string) => ({
  customer_id: userId,
  role_id: role[roleName]!,
  scope_type: scopeType,
  scope_object_id: scopeObjectId,
});

describe("GET /iam/roles", () => {
  it.each(["owner", "member"] as const)("lists the demo organization's roles to the %s, with the Role fields", async (who) => {
    const res = await t.opJson<{ roles: Role[] }>(who, "listRoles");
    expect(res.status).toBe(200);
    expect(res.body.roles.length).toBeGreaterThanOrEqual(5);
    for (const r of res.body.roles) {
      expect(Object.keys(r).sort()).toEqual(["allowed_scopes", "description", "id", "org_id", "role_name"]);
      expect(r).toMatchObject({ id: expect.any(String), role_name: expect.any(String), org_id: t.demo.organization_id, description: expect.any(String) });
      expect(r.allowed_scopes.length).toBeGreaterThan(0);
      for (const s of r.allowed_scopes) expect(["org", "project"]).toContain(s);
    }
    expect(res.body.roles.map((r) => r.role_name)).toEqual(expect.arrayContaining(["Organization Admin", "Organization Member", "Project Admin", "Project Member"]));
  });

  it("lists to the outsider only their own organization's roles", async () => {
    const res = await t.opJson<{ roles: Role[] }>("outsider", "listRoles");
    expect(res.status).toBe(200);
    expect(res.body.roles.length).toBeGreaterThan(0);
    expect(new Set(res.body.roles.map((r) => r.org_id))).toEqual(new Set([globexId]));
    expect(res.body.roles.map((r) => r.id)).not.toContain(role["Organization Admin"]);
  });
});

describe("GET /iam/role-bindings", () => {
  const memberBound = () =>
    [
      ["Organization Member", "org", t.demo.organization_id],
      ["Project Admin", "project", project["llm-training"]],
      ["Project Member", "project", project["inference-prod"]],
      ["Project Member", "project", project["research-sandbox"]],
    ].sort();
  const shape = (list: Binding[]) => list.map((b) => [b.role_name, b.scope_type, b.scope_object_id]).sort();

  it("shows the owner every binding of the organization, with the RoleBinding fields", async () => {
    const res = await bindings("owner");
    expect(res.status).toBe(200);
    const stored = (await allBindings()).filter((b) => b.organizationId === t.demo.organization_id);
    expect(res.body.role_bindings.map((b) => b.id).sort()).toEqual(stored.map((b) => b.id).sort());
    expect(new Set(res.body.role_bindings.map((b) => b.customer_id))).toEqual(new Set([t.demo.owner.user_id, t.demo.member.user_id, t.demo.auditor.user_id]));
    for (const b of res.body.role_bindings) {
      expect(Object.keys(b).sort()).toEqual(["customer_id", "id", "role_id", "role_name", "scope_object_id", "scope_type"]);
      expect(role[b.role_name]).toBe(b.role_id);
    }
  });

  it("shows the member only their own bindings", async () => {
    const res = await bindings("member");
    expect(res.status).toBe(200);
    expect(res.body.role_bindings.every((b) => b.customer_id === t.demo.member.user_id)).toBe(true);
    expect(shape(res.body.role_bindings)).toEqual(memberBound());
    expect((await bindings("member", { user_id: t.demo.owner.user_id })).body.role_bindings).toEqual([]);
  });

  it("shows the outsider only their own organization's bindings", async () => {
    const res = await bindings("outsider");
    expect(res.status).toBe(200);
    expect(res.body.role_bindings.map((b) => [b.customer_id, b.role_name, b.scope_object_id])).toEqual([
      [t.demo.outsider.user_id, "Organization Admin", globexId],
    ]);
  });

  it("filters by user_id, role_id, scope_type and scope_object_id", async () => {
    expect(shape((await bindings("owner", { user_id: t.demo.member.user_id })).body.role_bindings)).toEqual(memberBound());
    const byRole = (await bindings("owner", { role_id: role["Project Member"]! })).body.role_bindings;
    expect(byRole.map((b) => b.scope_object_id).sort()).toEqual([project["inference-prod"], project["research-sandbox"]].sort());
    const projectScoped = (await bindings("owner", { scope_type: "project" })).body.role_bindings;
    expect(projectScoped).toHaveLength(3);
    expect(projectScoped.every((b) => b.scope_type === "project")).toBe(true);
    const orgScoped = (await bindings("owner", { scope_type: "org" })).body.role_bindings;
    expect(orgScoped.map((b) => b.role_name).sort()).toEqual(["Auditor", "Billing Viewer", "Organization Admin", "Organization Member", "Organization Member"]);
    const onProject = (await bindings("owner", { scope_object_id: project["llm-training"]! })).body.role_bindings;
    expect(onProject.map((b) => [b.customer_id, b.role_name])).toEqual([[t.demo.member.user_id, "Project Admin"]]);
    const onOrg = (await bindings("owner", { scope_object_id: t.demo.organization_id })).body.role_bindings;
    expect(onOrg).toHaveLength(5);
    const combined = await bindings("owner", { user_id: t.demo.member.user_id, scope_type: "project", role_id: role["Project Member"]! });
    expect(combined.body.role_bindings).toHaveLength(2);
    expect((await bindings("member", { scope_type: "project", role_id: role["Project Admin"]! })).body.role_bindings).toHaveLength(1);
  });

  it("answers 400 naming scope_type for a value other than org or project", async () => {
    const res = await bindings("owner", { scope_type: "folder" });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("scope_type");
  });

  it.each([
    ["an unknown user_id", async () => ({ user_id: UNKNOWN })],
    ["a user_id of another organization", async () => ({ user_id: t.demo.outsider.user_id })],
    ["an unknown role_id", async () => ({ role_id: UNKNOWN })],
    ["a role_id of another organization", async () => ({ role_id: (await bindings("outsider")).body.role_bindings[0]!.role_id })],
    ["an unknown scope_object_id", async () => ({ scope_object_id: UNKNOWN })],
    ["another organization's id as scope_object_id", async () => ({ scope_object_id: (await bindings("outsider")).body.role_bindings[0]!.scope_object_id })],
  ])("answers 404 for %s", async (_what, query) => {
    const res = await bindings("owner", await query());
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: "404", reason: "not_found" });
  });

  it("answers a project hidden from the caller as it answers one that does not exist (404), and one they see with its bindings", async () => {
    const projectRows = await t.gateway.store.db.select().from(projects).where(eq(projects.organizationId, t.demo.organization_id));
    const hidden = projectRows.find((p) => p.name === "staging")!;
    const seen = projectRows.find((p) => p.name === "llm-training")!;
    expect((await bindings("member", { scope_object_id: hidden.id })).status).toBe(404);
    expect((await bindings("member", { scope_object_id: UNKNOWN })).status).toBe(404);
    expect((await bindings("member", { scope_object_id: seen.id })).status).toBe(200);
    // Those who read IAM know every project of the organization.
    expect((await bindings("auditor", { scope_object_id: hidden.id })).status).toBe(200);
  });
});

describe("POST /iam/users/{user_id}/role-bindings", () => {
  const member = () => t.demo.member.user_id;
  const bindingId = async (roleName: string, scopeObjectId: string) => {
    const list = (await bindings("owner", { user_id: member(), role_id: role[roleName]!, scope_object_id: scopeObjectId })).body.role_bindings;
    expect(list).toHaveLength(1);
    return list[0]!.id;
  };

  it("creates and deletes in one call, audited with every binding id", async () => {
    const before = await allBindings();
    const gone = await bindingId("Project Member", project["research-sandbox"]!);
    const body = {
      bindings_to_create: [input(member(), "Billing Viewer", "org", t.demo.organization_id), input(member(), "Project Member", "project", project["staging"]!)],
      bindings_to_delete: [gone],
    };
    const { result: res, entries } = await t.audited(() => apply("owner", member(), body));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});

    const after = await allBindings();
    expect(after.map((b) => b.id)).not.toContain(gone);
    const added = after.filter((b) => !before.some((x) => x.id === b.id));
    expect(added.map((b) => [b.userId, b.roleId, b.scopeType, b.scopeObjectId, b.organizationId]).sort()).toEqual(
      [
        [member(), role["Billing Viewer"], "org", t.demo.organization_id, t.demo.organization_id],
        [member(), role["Project Member"], "project", project["staging"], t.demo.organization_id],
      ].sort(),
    );
    expect(after).toHaveLength(before.length + 1);

    // The member's access follows the bindings at once.
    const seen = (await t.opJson<{ items: Array<{ name: string }> }>("member", "listProjects")).body.items.map((p) => p.name);
    expect(seen).toEqual(["inference-prod", "llm-training", "staging"]);

    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      organizationId: t.demo.organization_id,
      action: "Update",
      actorId: t.demo.owner.user_id,
      actorEmail: t.demo.owner.email,
      result: "OK",
      targetType: "RoleBinding",
      targetNames: [t.demo.member.email],
    });
    expect([...entries[0]!.targetIds].sort()).toEqual([...added.map((b) => b.id), gone].sort());
  });

  it("answers 200 to an empty apply and changes nothing", async () => {
    const before = await allBindings();
    const res = await apply("owner", member(), { bindings_to_create: [], bindings_to_delete: [] });
    expect(res.status).toBe(200);
    expect(await allBindings()).toEqual(before);
  });

  it("authorizes an empty apply where the caller holds iam.write, of the organizations it shares with the person", async () => {
    const db = t.gateway.store.db;
    // The outsider (owner of Globex) a plain member of Acme too, and the member a person of Globex: two shared
    // organizations, the caller an admin in one only.
    await db.insert(memberships).values([
      { organizationId: t.demo.organization_id, userId: t.demo.outsider.user_id, relation: "member" },
      { organizationId: globexId, userId: t.demo.member.user_id, relation: "member" },
    ]);
    try {
      const { result: res, entries } = await t.audited(() => apply("outsider", member(), { bindings_to_create: [], bindings_to_delete: [] }));
      expect(res.status).toBe(200);
      expect(entries.map((e) => [e.organizationId, e.result])).toEqual([[globexId, "OK"]]);
    } finally {
      await db.delete(memberships).where(and(eq(memberships.organizationId, t.demo.organization_id), eq(memberships.userId, t.demo.outsider.user_id)));
      await db.delete(memberships).where(and(eq(memberships.organizationId, globexId), eq(memberships.userId, t.demo.member.user_id)));
    }
  });

  it.each([
    ["an unknown user", () => UNKNOWN],
    ["a user of another organization", () => t.demo.outsider.user_id],
  ])("answers 404 for %s, audited", async (_what, userId) => {
    const before = await allBindings();
    const { result: res, entries } = await t.audited(() => apply("owner", userId(), { bindings_to_create: [], bindings_to_delete: [] }));
    expect(res.status).toBe(404);
    expect(res.body.reason).toBe("not_found");
    expect(await allBindings()).toEqual(before);
    expect(entries.map((e) => [e.actorId, e.result])).toEqual([[t.demo.owner.user_id, "NOT_FOUND"]]);
  });

  /** Each body is a request with one failing item, most mixed with valid ones; none may change anything. */
  const failing: Array<[string, string, () => Promise<unknown>]> = [
    ["an unknown binding id to delete", "bindings_to_delete[0]", async () => ({ bindings_to_create: [], bindings_to_delete: [UNKNOWN] })],
    [
      "a binding of another user to delete, next to a valid create",
      "bindings_to_delete[0]",
      async () => ({
        bindings_to_create: [input(member(), "Auditor", "org", t.demo.organization_id)],
        bindings_to_delete: [(await bindings("owner", { user_id: t.demo.owner.user_id })).body.role_bindings[0]!.id],
      }),
    ],
    [
      "an unknown role, next to a valid delete",
      "bindings_to_create[0].role_id",
      async () => ({
        bindings_to_create: [{ ...input(member(), "Auditor", "org", t.demo.organization_id), role_id: UNKNOWN }],
        bindings_to_delete: [await bindingId("Project Member", project["inference-prod"]!)],
      }),
    ],
    [
      "a role of another organization",
      "bindings_to_create[0].role_id",
      async () => ({
        bindings_to_create: [{ ...input(member(), "Auditor", "org", globexId), role_id: (await bindings("outsider")).body.role_bindings[0]!.role_id }],
        bindings_to_delete: [],
      }),
    ],
    [
      "a scope the role does not allow",
      "bindings_to_create[0].scope_type",
      async () => ({ bindings_to_create: [input(member(), "Project Member", "org", t.demo.organization_id)], bindings_to_delete: [] }),
    ],
    [
      "an organization scope of another organization",
      "bindings_to_create[0].scope_object_id",
      async () => ({ bindings_to_create: [input(member(), "Auditor", "org", globexId)], bindings_to_delete: [] }),
    ],
    [
      "an unknown scope project, after a valid create",
      "bindings_to_create[1].scope_object_id",
      async () => ({
        bindings_to_create: [input(member(), "Auditor", "org", t.demo.organization_id), input(member(), "Project Member", "project", UNKNOWN)],
        bindings_to_delete: [],
      }),
    ],
    [
      "a customer_id other than the user_id",
      "bindings_to_create[0].customer_id",
      async () => ({ bindings_to_create: [input(t.demo.owner.user_id, "Auditor", "org", t.demo.organization_id)], bindings_to_delete: [] }),
    ],
    [
      "a binding the user already has, after a valid delete and a valid create",
      "bindings_to_create[1]",
      async () => ({
        bindings_to_create: [input(member(), "Auditor", "org", t.demo.organization_id), input(member(), "Project Admin", "project", project["llm-training"]!)],
        bindings_to_delete: [await bindingId("Project Member", project["inference-prod"]!)],
      }),
    ],
    [
      "the same binding twice",
      "bindings_to_create[1]",
      async () => ({
        bindings_to_create: [input(member(), "Auditor", "org", t.demo.organization_id), input(member(), "Auditor", "org", t.demo.organization_id)],
        bindings_to_delete: [],
      }),
    ],
    [
      "the same deletion twice",
      "bindings_to_delete",
      async () => {
        const id = await bindingId("Project Member", project["inference-prod"]!);
        return { bindings_to_create: [], bindings_to_delete: [id, id] };
      },
    ],
  ];

  it.each(failing)("refuses %s with 400 naming %s, and changes nothing", async (what, field, body) => {
    const payload = await body();
    const before = await allBindings();
    const { result: res, entries } = await t.audited(() => apply("owner", member(), payload));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "400", reason: "bad_request" });
    expect(res.body.message.startsWith(`${field}:`)).toBe(true);
    expect(await allBindings()).toEqual(before);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actorId: t.demo.owner.user_id, result: "INVALID_ARGUMENT", targetIds: [] });
  });

  it("names the failing item in the message", async () => {
    const res = await apply("owner", member(), {
      bindings_to_create: [input(member(), "Auditor", "org", t.demo.organization_id), input(member(), "Project Member", "org", t.demo.organization_id)],
      bindings_to_delete: [],
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("bindings_to_create[1]");
  });

  it("refuses the member with 403, audited, and changes nothing", async () => {
    const before = await allBindings();
    const body = { bindings_to_create: [input(member(), "Organization Admin", "org", t.demo.organization_id)], bindings_to_delete: [] };
    const { result: res, entries } = await t.audited(() => apply("member", member(), body));
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe("permission_denied");
    expect(await allBindings()).toEqual(before);
    expect(entries.map((e) => [e.organizationId, e.actorId, e.actorEmail, e.result])).toEqual([
      [t.demo.organization_id, t.demo.member.user_id, t.demo.member.email, "PERMISSION_DENIED"],
    ]);

    const removal = await apply("member", t.demo.owner.user_id, { bindings_to_create: [], bindings_to_delete: [] });
    expect(removal.status).toBe(403);

    // Refused before anything else is looked up: whether a project exists tells a caller without iam.write nothing.
    for (const scope of [UNKNOWN, project["staging"]!]) {
      const probe = await apply("member", member(), { bindings_to_create: [input(member(), "Project Member", "project", scope)], bindings_to_delete: [] });
      expect(probe.status).toBe(403);
    }
  });

  it("does not let the outsider change the demo organization's bindings, nor see them", async () => {
    const before = await allBindings();
    // Roles, bindings and users of an organization the outsider is not in do not exist for them.
    // Whatever the body: a 400 about the role or a binding would tell that the person exists.
    const bodies = [
      { bindings_to_create: [input(member(), "Auditor", "org", t.demo.organization_id)], bindings_to_delete: [] },
      { bindings_to_create: [], bindings_to_delete: [await bindingId("Project Member", project["inference-prod"]!)] },
      { bindings_to_create: [], bindings_to_delete: ["00000000-0000-0000-0000-000000000000"] },
      { bindings_to_create: [], bindings_to_delete: [] },
    ];
    const unknown = "00000000-0000-4000-8000-00000000abcd";
    for (const body of bodies) {
      for (const target of [member(), unknown]) {
        const res = await apply("outsider", target, body);
        expect(res.status, JSON.stringify(body)).toBe(404);
        expect(res.body.message).toBe(`user ${target} not found`);
      }
    }
    expect(await allBindings()).toEqual(before);
  });

  it("answers the owner 404 for a person of no organization of theirs, as for one who does not exist", async () => {
    const before = await allBindings();
    const res = await apply("owner", t.demo.outsider.user_id, { bindings_to_create: [input(t.demo.outsider.user_id, "Auditor", "org", t.demo.organization_id)], bindings_to_delete: [] });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(`user ${t.demo.outsider.user_id} not found`);
    expect(await allBindings()).toEqual(before);
  });

  it.each([
    ["a missing bindings_to_create", { bindings_to_delete: [] }, "bindings_to_create"],
    ["a missing bindings_to_delete", { bindings_to_create: [] }, "bindings_to_delete"],
    ["bindings_to_create as an object", { bindings_to_create: {}, bindings_to_delete: [] }, "bindings_to_create"],
    ["an item without role_id", { bindings_to_create: [{ customer_id: "u", scope_type: "org", scope_object_id: "o" }], bindings_to_delete: [] }, "body.bindings_to_create[0].role_id: is required"],
    ["an unknown scope_type", { bindings_to_create: [{ customer_id: "u", role_id: "r", scope_type: "folder", scope_object_id: "o" }], bindings_to_delete: [] }, "scope_type"],
    ["an empty id to delete", { bindings_to_create: [], bindings_to_delete: [""] }, "bindings_to_delete"],
  ])("answers 400 for %s, naming the field, audited", async (_what, body, field) => {
    const before = await allBindings();
    const { result: res, entries } = await t.audited(() => apply("owner", member(), body));
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
    expect(await allBindings()).toEqual(before);
    expect(entries.map((e) => [e.actorId, e.result])).toEqual([[t.demo.owner.user_id, "INVALID_ARGUMENT"]]);
  });
});
