import { randomUUID } from "node:crypto";
import { and, countDistinct, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addMember, createApiKey, createUser } from "../../admin";
import type { DemoUser } from "../../seed";
import { disks, networkInterfaces, projects, roleBindings, roles, ssoProviders, vms } from "../../store/schema";
import { createTestGateway, type TestGateway, type Who } from "../../testing";

/** A fresh store with the whole demo seeded; slow on a busy machine. */
const SETUP_MS = 180_000;

let t: TestGateway;
/** Demo project name → id. */
const ids: Record<string, string> = {};
beforeAll(async () => {
  t = await createTestGateway();
  const rows = await t.gateway.store.db.select().from(projects).where(eq(projects.organizationId, t.demo.organization_id));
  for (const row of rows) ids[row.name] = row.id;
}, SETUP_MS);
afterAll(() => t.close());

interface Counts {
  instances: { count: number };
  disks: { count: number };
  snapshots: { count: number };
  images: { count: number };
  vpc_networks: { count: number };
}
interface Project {
  id: string;
  organization_id: string;
  name: string;
  relation: string;
  resources: Counts;
}
interface ErrorBody {
  code: string;
  message: string;
  error_id: string;
  reason: string;
}
type Answer = Project & ErrorBody & { project: Project; items: Project[] };

const DEMO = ["data-pipeline", "eval-harness", "inference-prod", "llm-training", "research-sandbox", "staging"];
const MEMBER_BOUND = ["inference-prod", "llm-training", "research-sandbox"];
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

const list = (who: Who, query: Record<string, string> = {}) => t.opJson<Answer>(who, "listProjects", { query });
const get = (who: Who, id: string) => t.opJson<Answer>(who, "getProject", { params: { project_id: id } });
const create = (who: Who, body: unknown) => t.opJson<Answer>(who, "createProject", { body });
const rename = (who: Who, id: string | null, body: unknown) =>
  t.opJson<Answer>(who, "updateProject", { query: id === null ? {} : { project_id: id }, body });
const remove = (who: Who, id: string) => t.opJson<Answer>(who, "deleteProject", { params: { project_id: id } });

/** The resource counts straight from the store. */
async function storedCounts(projectId: string): Promise<Counts> {
  const db = t.gateway.store.db;
  const [v] = await db.select({ n: sql<number>`count(*)::int` }).from(vms).where(eq(vms.projectId, projectId));
  const [d] = await db.select({ n: sql<number>`count(*)::int` }).from(disks).where(eq(disks.projectId, projectId));
  const [n] = await db
    .select({ n: countDistinct(networkInterfaces.network) })
    .from(networkInterfaces)
    .innerJoin(vms, eq(vms.id, networkInterfaces.vmId))
    .where(eq(vms.projectId, projectId));
  return {
    instances: { count: Number(v?.n) },
    disks: { count: Number(d?.n) },
    snapshots: { count: 0 },
    images: { count: 0 },
    vpc_networks: { count: Number(n?.n) },
  };
}

describe("GET /organizations/projects", () => {
  it("lists all six demo projects to the owner, with their resource counts", async () => {
    const res = await list("owner");
    expect(res.status).toBe(200);
    expect(res.body.items.map((p) => p.name)).toEqual(DEMO);
    for (const p of res.body.items) {
      expect(p).toMatchObject({ id: ids[p.name], organization_id: t.demo.organization_id, relation: "owner" });
      expect(p.resources).toEqual(await storedCounts(p.id));
    }
    expect(res.body.items.find((p) => p.name === "llm-training")!.resources.instances.count).toBe(6);
    expect(res.body.items.every((p) => p.resources.disks.count >= p.resources.instances.count)).toBe(true);
  });

  it("lists to the member only the three projects they are bound to", async () => {
    const res = await list("member");
    expect(res.status).toBe(200);
    expect(res.body.items.map((p) => [p.name, p.relation])).toEqual(MEMBER_BOUND.map((n) => [n, "member"]));
    expect(res.body.items[0]!.resources.instances.count).toBeGreaterThan(0);
  });

  it("lists to the outsider only their own organization's project", async () => {
    const res = await list("outsider");
    expect(res.status).toBe(200);
    expect(res.body.items.map((p) => p.name)).toEqual(["globex-default"]);
  });

  it("lists to a key that acts in one organization (an SSO session's) only that organization's projects, whichever key asks first", async () => {
    const db = t.gateway.store.db;
    const globex = await t.outsiderOrganizationId();
    // An account that owns Globex and is a project member in Acme, with its own key and an Acme SSO session's key.
    const user = await createUser(db, { email: "two-orgs@globex.example" });
    await addMember(db, globex, user.id, "owner");
    await addMember(db, t.demo.organization_id, user.id, "member");
    const [role] = await db.select().from(roles).where(and(eq(roles.organizationId, t.demo.organization_id), eq(roles.roleName, "Project Member")));
    await db.insert(roleBindings).values({ id: randomUUID(), organizationId: t.demo.organization_id, userId: user.id, roleId: role!.id, scopeType: "project", scopeObjectId: ids.staging! });
    const [provider] = await db.select().from(ssoProviders).where(eq(ssoProviders.organizationId, t.demo.organization_id));
    const asUser = async (ssoProviderId: string | null): Promise<DemoUser> => {
      const key = await createApiKey(db, t.gateway.deps.masterKey, user.id, "test", null, ssoProviderId);
      return { user_id: user.id, email: user.email, access_key_id: key.accessKeyId, secret_key: key.secretKey };
    };
    const full = await asUser(null);
    const scoped = await asUser(provider!.id);
    // Each order with its own query, so that neither finds the other's answer kept already.
    const names = async (who: DemoUser, query: Record<string, string>) => (await t.opJson<Answer>(who, "listProjects", { query })).body.items.map((p) => p.name);
    for (const [order, query] of [[[full, scoped], { skip_loading_project_resources: "true" }], [[scoped, full], {}]] as const) {
      for (const who of order) expect(await names(who, query)).toEqual(who === full ? ["globex-default", "staging"] : ["staging"]);
    }
  });

  it("filters by organization for its owner, and refuses that filter to others with 403", async () => {
    const owner = await list("owner", { org_id: t.demo.organization_id });
    expect(owner.status).toBe(200);
    expect(owner.body.items.map((p) => p.name)).toEqual(DEMO);

    const member = await list("member", { org_id: t.demo.organization_id });
    expect(member.status).toBe(403);
    expect(member.body).toMatchObject({ code: "403", reason: "permission_denied" });
    expect((await list("outsider", { org_id: t.demo.organization_id })).status).toBe(403);
    const globex = (await list("outsider")).body.items[0]!.organization_id;
    expect((await list("owner", { org_id: globex })).status).toBe(403);
  });

  it("filters by exact project name", async () => {
    expect((await list("owner", { project_name: "llm-training" })).body.items.map((p) => p.id)).toEqual([ids["llm-training"]]);
    expect((await list("owner", { project_name: "llm" })).body.items).toEqual([]);
    expect((await list("owner", { project_name: "LLM-TRAINING" })).body.items).toEqual([]);
    expect((await list("member", { project_name: "staging" })).body.items).toEqual([]);
    const both = await list("owner", { org_id: t.demo.organization_id, project_name: "staging" });
    expect(both.body.items.map((p) => p.name)).toEqual(["staging"]);
  });

  it("skips the resource counts on request", async () => {
    for (const value of ["true", "1"]) {
      const res = await list("owner", { skip_loading_project_resources: value });
      expect(res.status).toBe(200);
      expect(res.body.items).toHaveLength(DEMO.length);
      for (const p of res.body.items) expect(Object.values(p.resources).every((r) => r.count === 0)).toBe(true);
    }
    const counted = await list("owner", { skip_loading_project_resources: "false" });
    expect(counted.body.items.some((p) => p.resources.instances.count > 0)).toBe(true);
  });

  it("answers 400 naming skip_loading_project_resources when it is not a boolean", async () => {
    const res = await list("owner", { skip_loading_project_resources: "yes" });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("skip_loading_project_resources");
  });
});

describe("GET /organizations/projects/{project_id}", () => {
  it("returns one project with its counts", async () => {
    const res = await get("owner", ids["inference-prod"]!);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: ids["inference-prod"],
      organization_id: t.demo.organization_id,
      name: "inference-prod",
      relation: "owner",
      resources: await storedCounts(ids["inference-prod"]!),
    });
    expect(res.body.resources.instances.count).toBe(5);
  });

  it("shows a bound project to the member as a member", async () => {
    const res = await get("member", ids["research-sandbox"]!);
    expect(res.status).toBe(200);
    expect(res.body.relation).toBe("member");
  });

  it.each([
    ["owner", "an unknown project", (): string => UNKNOWN],
    ["member", "a project they are not bound to", (): string => ids["data-pipeline"]!],
    ["outsider", "a project of another organization", (): string => ids["llm-training"]!],
  ] as const)("answers the %s 404 for %s", async (who, _what, id) => {
    const res = await get(who, id());
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: "404", reason: "not_found" });
  });
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

describe("GET /organizations/projects/{project_id}/vms", () => {
  it("lists the project's VMs in the spec's VM shape", async () => {
    const res = await t.opJson<{ items: Array<Record<string, unknown>> }>("member", "listProjectVMs", { params: { project_id: ids["llm-training"]! } });
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(6);
    for (const vm of res.body.items) {
      expect(Object.keys(vm).sort()).toEqual(
        [
          "id", "name", "type", "location", "project_id", "state", "created_at", "updated_at", "commitment_end",
          "commitment_period", "ssh_destination", "host_channel_adapters", "disks", "network_interfaces",
        ].sort(),
      );
      expect(vm).toMatchObject({
        id: expect.stringMatching(UUID),
        name: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
        type: expect.stringMatching(/^[a-z0-9-]+\.\d+x$/),
        location: expect.any(String),
        project_id: ids["llm-training"],
        state: expect.stringMatching(/^STATE_[A-Z_]+$/),
        created_at: expect.stringMatching(RFC3339),
        updated_at: expect.stringMatching(RFC3339),
        commitment_period: expect.any(Number),
        ssh_destination: expect.any(String),
        host_channel_adapters: [],
      });
      expect(Number.isInteger(vm.commitment_period)).toBe(true);
      // No commitment: empty end and period 0; a commitment has both.
      expect(vm.commitment_end === "").toBe(vm.commitment_period === 0);
      if (vm.commitment_end !== "") expect(vm.commitment_end).toMatch(RFC3339);

      const vmDisks = vm.disks as Array<Record<string, unknown>>;
      expect(vmDisks.filter((d) => d.attachment_type === "os")).toHaveLength(1);
      for (const disk of vmDisks) {
        expect(Object.keys(disk).sort()).toEqual(
          ["id", "name", "type", "size", "block_size", "attachment_type", "mode", "location", "serial_number", "created_at", "updated_at"].sort(),
        );
        expect(disk).toMatchObject({
          id: expect.stringMatching(UUID),
          name: expect.any(String),
          type: "persistent-ssd",
          size: expect.stringMatching(/^\d+GiB$/),
          block_size: expect.any(Number),
          attachment_type: expect.any(String),
          mode: expect.stringMatching(/^read-(only|write)$/),
          location: vm.location,
          serial_number: expect.any(String),
          created_at: expect.stringMatching(RFC3339),
          updated_at: expect.stringMatching(RFC3339),
        });
      }

      const nics = vm.network_interfaces as Array<Record<string, unknown>>;
      expect(nics.length).toBeGreaterThan(0);
      for (const nic of nics) {
        expect(Object.keys(nic).sort()).toEqual(["id", "name", "interface_type", "mac_address", "network", "subnet", "ips"].sort());
        expect(nic).toMatchObject({
          id: expect.stringMatching(UUID),
          name: expect.any(String),
          interface_type: "Ethernet",
          mac_address: expect.stringMatching(/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i),
          network: expect.stringMatching(UUID),
          subnet: expect.stringMatching(UUID),
        });
        const ips = nic.ips as Array<{ private_ipv4?: { address: string }; public_ipv4?: { address: string; id: string; type: string } }>;
        expect(ips.length).toBeGreaterThan(0);
        for (const ip of ips) {
          expect(Object.keys(ip).every((k) => k === "private_ipv4" || k === "public_ipv4")).toBe(true);
          if (ip.private_ipv4) {
            expect(Object.keys(ip.private_ipv4)).toEqual(["address"]);
            expect(ip.private_ipv4.address).toMatch(IPV4);
          }
          if (ip.public_ipv4) {
            expect(Object.keys(ip.public_ipv4).sort()).toEqual(["address", "id", "type"]);
            expect(ip.public_ipv4).toMatchObject({ address: expect.stringMatching(IPV4), id: expect.stringMatching(UUID), type: "dynamic" });
          }
        }
      }
    }
    expect(res.body.items.some((vm) => (vm.network_interfaces as unknown[]).length > 0)).toBe(true);
  });

  it.each([
    ["member", (): string => ids["staging"]!],
    ["outsider", (): string => ids["llm-training"]!],
    ["owner", (): string => UNKNOWN],
  ] as const)("answers the %s 404 for a project they cannot see", async (who, id) => {
    expect((await t.opJson(who, "listProjectVMs", { params: { project_id: id() } })).status).toBe(404);
  });
});

describe("POST /organizations/projects", () => {
  it("lets the owner create a project, audited with its id", async () => {
    const { result: res, entries } = await t.audited(() => create("owner", { organization_id: t.demo.organization_id, name: "  new-project  " }));
    expect(res.status).toBe(200);
    const project = res.body.project;
    expect(project).toMatchObject({ id: expect.stringMatching(UUID), organization_id: t.demo.organization_id, name: "new-project", relation: "owner" });
    expect(Object.values(project.resources).every((r) => r.count === 0)).toBe(true);
    expect((await get("owner", project.id)).body).toEqual(project);
    expect((await list("owner")).body.items.map((p) => p.name)).toContain("new-project");
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      organizationId: t.demo.organization_id,
      action: "Create",
      actorId: t.demo.owner.user_id,
      actorEmail: t.demo.owner.email,
      result: "OK",
      targetIds: [project.id],
      targetNames: ["new-project"],
      targetType: "Project",
      projectId: project.id,
    });
  });

  it.each(["member", "outsider"] as const)("refuses the %s with 403, audited, and creates nothing", async (who) => {
    const name = `by-${who}`;
    const { result: res, entries } = await t.audited(() => create(who, { organization_id: t.demo.organization_id, name }));
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe("permission_denied");
    expect((await list("owner", { project_name: name })).body.items).toEqual([]);
    expect(entries.map((e) => [e.organizationId, e.actorId, e.action, e.result, e.targetNames])).toEqual([
      [t.demo.organization_id, t.demo[who].user_id, "Create", "PERMISSION_DENIED", [name]],
    ]);
  });

  it.each([
    ["a missing name", { organization_id: "ORG" }, "name"],
    ["an empty name", { organization_id: "ORG", name: "" }, "name"],
    ["a blank name", { organization_id: "ORG", name: "   " }, "name"],
    ["a name over 255 characters", { organization_id: "ORG", name: "p".repeat(256) }, "name"],
    ["a numeric name", { organization_id: "ORG", name: 12 }, "name"],
    ["a name with a control character", { organization_id: "ORG", name: "a\u0000b" }, "name"],
    ["a missing organization_id", { name: "orphan" }, "organization_id"],
    ["an empty organization_id", { organization_id: "", name: "orphan" }, "organization_id"],
    ["a numeric organization_id", { organization_id: 5, name: "orphan" }, "organization_id"],
  ])("answers 400 for %s, naming the field, audited", async (_what, raw, field) => {
    const body = JSON.parse(JSON.stringify(raw).replace('"ORG"', JSON.stringify(t.demo.organization_id))) as unknown;
    const before = (await list("owner", { skip_loading_project_resources: "true" })).body.items.length;
    const { result: res, entries } = await t.audited(() => create("owner", body));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "400", reason: "bad_request" });
    expect(res.body.message).toContain(field);
    expect((await list("owner", { skip_loading_project_resources: "true" })).body.items).toHaveLength(before);
    expect(entries.map((e) => [e.actorId, e.action, e.result])).toEqual([[t.demo.owner.user_id, "Create", "INVALID_ARGUMENT"]]);
  });

  it("accepts a name of exactly 255 characters", async () => {
    const res = await create("owner", { organization_id: t.demo.organization_id, name: "q".repeat(255) });
    expect(res.status).toBe(200);
    expect(res.body.project.name).toHaveLength(255);
  });

  it("answers 400 naming name for a name already used in the organization", async () => {
    for (const name of ["staging", " staging "]) {
      const { result: res, entries } = await t.audited(() => create("owner", { organization_id: t.demo.organization_id, name }));
      expect(res.status).toBe(400);
      expect(res.body.message).toContain("name");
      expect(entries.map((e) => [e.result, e.organizationId])).toEqual([["INVALID_ARGUMENT", t.demo.organization_id]]);
    }
    expect((await list("owner", { project_name: "staging" })).body.items).toHaveLength(1);
  });

  it("lets a member with the project-creation permission create a project they then administer", async () => {
    const roles = (await t.opJson<{ roles: Array<{ id: string; role_name: string; org_id: string }> }>("owner", "listRoles")).body.roles;
    const creator = roles.find((r) => r.role_name === "Project Creator" && r.org_id === t.demo.organization_id)!;
    const member = t.demo.member.user_id;
    const grant = await t.opJson("owner", "applyRoleBindings", { params: { user_id: member },
      body: {
        bindings_to_create: [{ customer_id: member, role_id: creator.id, scope_type: "org", scope_object_id: t.demo.organization_id }],
        bindings_to_delete: [],
      },
    });
    expect(grant.status).toBe(200);

    const res = await create("member", { organization_id: t.demo.organization_id, name: "members-own" });
    expect(res.status).toBe(200);
    const shown = await get("member", res.body.project.id);
    expect(shown.status).toBe(200);
    expect(res.body.project).toEqual(shown.body);
    expect((await list("member")).body.items.map((p) => p.name)).toContain("members-own");
    expect((await rename("member", res.body.project.id, { name: "members-own-2" })).status).toBe(200);
    // The permission creates; it does not reach the organization's other projects.
    expect((await rename("member", ids["staging"]!, { name: "x" })).status).toBe(403);
    expect((await list("member", { org_id: t.demo.organization_id })).status).toBe(403);
  });

  it("allows the same name in another organization", async () => {
    const globex = (await list("outsider")).body.items[0]!.organization_id;
    const res = await create("outsider", { organization_id: globex, name: "staging" });
    expect(res.status).toBe(200);
    expect(res.body.project.organization_id).toBe(globex);
  });
});

describe("PUT /organizations/projects", () => {
  it("renames a project for the owner and changes nothing else", async () => {
    const id = ids["eval-harness"]!;
    const before = (await get("owner", id)).body;
    const { result: res, entries } = await t.audited(() => rename("owner", id, { name: "eval-harness-v2" }));
    expect(res.status).toBe(200);
    expect(res.body.project).toEqual({ ...before, name: "eval-harness-v2" });
    expect((await get("owner", id)).body).toEqual({ ...before, name: "eval-harness-v2" });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      organizationId: t.demo.organization_id,
      action: "Update",
      actorId: t.demo.owner.user_id,
      result: "OK",
      targetIds: [id],
      targetNames: ["eval-harness-v2"],
      projectId: id,
    });
  });

  it("ignores any field but the name", async () => {
    const id = ids["eval-harness"]!;
    const globex = (await list("outsider")).body.items[0]!.organization_id;
    const res = await rename("owner", id, { name: "eval-harness", organization_id: globex, id: UNKNOWN });
    expect(res.status).toBe(200);
    expect(res.body.project).toMatchObject({ id, organization_id: t.demo.organization_id, name: "eval-harness" });
    const after = (await get("owner", id)).body;
    expect(after).toMatchObject({ id, organization_id: t.demo.organization_id });
    expect((await list("outsider")).body.items.map((p) => p.id)).not.toContain(id);
  });

  it("lets a member rename a project they administer", async () => {
    const id = ids["llm-training"]!;
    const res = await rename("member", id, { name: "llm-training-renamed" });
    expect(res.status).toBe(200);
    expect(res.body.project).toMatchObject({ id, name: "llm-training-renamed", relation: "member" });
    expect((await rename("member", id, { name: "llm-training" })).status).toBe(200);
  });

  it.each([
    ["member", "a project where they are Project Member", "inference-prod"],
    ["member", "a project they are not bound to", "staging"],
  ] as const)("refuses the %s on %s with 403, audited", async (who, _what, name) => {
    const id = ids[name]!;
    const { result: res, entries } = await t.audited(() => rename(who, id, { name: "taken-over" }));
    expect(res.status).toBe(403);
    expect((await get("owner", id)).body.name).toBe(name);
    expect(entries.map((e) => [e.organizationId, e.actorId, e.result, e.targetIds])).toEqual([
      [t.demo.organization_id, t.demo[who].user_id, "PERMISSION_DENIED", [id]],
    ]);
  });

  it("answers the outsider 404 for another organization's project, as for a missing one (no existence oracle)", async () => {
    const id = ids["staging"]!;
    const globex = (await list("outsider")).body.items[0]!.organization_id;
    const { result: res, entries } = await t.audited(() => rename("outsider", id, { name: "taken-over" }));
    const missing = await rename("outsider", UNKNOWN, { name: "taken-over" });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: "404", reason: "not_found", message: `project ${id} not found` });
    expect([missing.status, missing.body.reason]).toEqual([404, "not_found"]);
    expect((await get("owner", id)).body.name).toBe("staging");
    expect(entries.map((e) => [e.organizationId, e.actorId, e.result, e.targetIds, e.projectName])).toEqual([
      [globex, t.demo.outsider.user_id, "NOT_FOUND", [id], null],
    ]);
  });

  it("answers 400 naming project_id when it is missing", async () => {
    const res = await rename("owner", null, { name: "x" });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("project_id");
  });

  it("answers 404 for an unknown project, audited", async () => {
    const { result: res, entries } = await t.audited(() => rename("owner", UNKNOWN, { name: "x" }));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: "404", reason: "not_found" });
    expect(entries.map((e) => [e.actorId, e.result, e.targetIds])).toEqual([[t.demo.owner.user_id, "NOT_FOUND", [UNKNOWN]]]);
  });

  it.each([
    ["a missing name", {}],
    ["an empty name", { name: "" }],
    ["a name over 255 characters", { name: "n".repeat(256) }],
    ["a numeric name", { name: 3 }],
    ["the name of another project", { name: "inference-prod" }],
  ])("answers 400 naming name for %s", async (_what, body) => {
    const id = ids["staging"]!;
    const res = await rename("owner", id, body);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("name");
    expect((await get("owner", id)).body.name).toBe("staging");
  });
});

describe("DELETE /organizations/projects/{project_id}", () => {
  it.each([
    ["member", "a project where they are Project Member", "inference-prod"],
    ["member", "a project they are not bound to", "data-pipeline"],
  ] as const)("refuses the %s on %s with 403, audited, and deletes nothing", async (who, _what, name) => {
    const id = ids[name]!;
    const { result: res, entries } = await t.audited(() => remove(who, id));
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe("permission_denied");
    expect((await get("owner", id)).status).toBe(200);
    expect(entries.map((e) => [e.organizationId, e.action, e.actorId, e.result, e.targetIds])).toEqual([
      [t.demo.organization_id, "Delete", t.demo[who].user_id, "PERMISSION_DENIED", [id]],
    ]);
  });

  it("answers 404 for an unknown project", async () => {
    const res = await remove("owner", UNKNOWN);
    expect(res.status).toBe(404);
  });

  it("answers the outsider 404 for another organization's project, as for a missing one, and deletes nothing", async () => {
    const id = ids["data-pipeline"]!;
    const res = await remove("outsider", id);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: "404", reason: "not_found", message: `project ${id} not found` });
    expect((await remove("outsider", UNKNOWN)).body.reason).toBe("not_found");
    expect((await get("owner", id)).status).toBe(200);
  });

  it("deletes the project with its VMs, disks, network interfaces and bindings", async () => {
    const db = t.gateway.store.db;
    const id = ids["data-pipeline"]!;
    const vmIds = (await db.select({ id: vms.id }).from(vms).where(eq(vms.projectId, id))).map((v) => v.id);
    expect(vmIds).toHaveLength(3);
    expect((await db.select().from(networkInterfaces).where(inArray(networkInterfaces.vmId, vmIds))).length).toBeGreaterThan(0);
    // A binding on the project, so there is one to go with it.
    await db.insert(roleBindings).values({
      id: "rb-on-data-pipeline",
      organizationId: t.demo.organization_id,
      userId: t.demo.member.user_id,
      roleId: (await t.opJson<{ roles: Array<{ id: string; role_name: string }> }>("owner", "listRoles")).body.roles.find(
        (r) => r.role_name === "Project Member",
      )!.id,
      scopeType: "project",
      scopeObjectId: id,
    });
    const otherVms = (await db.select({ id: vms.id }).from(vms)).length - vmIds.length;

    const { result: res, entries } = await t.audited(() => remove("owner", id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await get("owner", id)).status).toBe(404);
    expect(await db.select().from(projects).where(eq(projects.id, id))).toEqual([]);
    expect(await db.select().from(vms).where(eq(vms.projectId, id))).toEqual([]);
    expect(await db.select().from(disks).where(eq(disks.projectId, id))).toEqual([]);
    expect(await db.select().from(networkInterfaces).where(inArray(networkInterfaces.vmId, vmIds))).toEqual([]);
    expect(await db.select().from(roleBindings).where(and(eq(roleBindings.scopeType, "project"), eq(roleBindings.scopeObjectId, id)))).toEqual([]);
    expect((await db.select({ id: vms.id }).from(vms)).length).toBe(otherVms);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      organizationId: t.demo.organization_id,
      action: "Delete",
      actorId: t.demo.owner.user_id,
      result: "OK",
      targetIds: [id],
      targetNames: ["data-pipeline"],
      targetType: "Project",
    });

    const again = await t.audited(() => remove("owner", id));
    expect(again.result.status).toBe(404);
    expect(again.entries.map((e) => [e.action, e.result])).toEqual([["Delete", "NOT_FOUND"]]);
  });

  it("lets a member delete a project they administer", async () => {
    const id = ids["llm-training"]!;
    expect((await remove("member", id)).status).toBe(200);
    expect((await get("member", id)).status).toBe(404);
    expect((await list("member")).body.items.map((p) => p.name)).toEqual(["inference-prod", "members-own-2", "research-sandbox"]);
  });
});
