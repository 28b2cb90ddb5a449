import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestGateway, opPath, type TestGateway, type Who } from "../../testing";

let t: TestGateway;
let org: string;
beforeAll(async () => {
  t = await createTestGateway();
  org = t.demo.organization_id;
});
afterAll(() => t.close());

const today = new Date().toISOString().slice(0, 10);
const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);

/** Each operation guarded by billing.read or audit.read, with the permission it needs. */
const GUARDED: Array<{ name: string; permission: "billing.read" | "audit.read"; path: () => string; query?: Record<string, string> }> = [
  { name: "billing costs", permission: "billing.read", path: () => opPath("getBillingCosts", { organization_id: org }) },
  { name: "billing options", permission: "billing.read", path: () => opPath("getBillingOptions", { organization_id: org }) },
  { name: "billing export", permission: "billing.read", path: () => opPath("getBillingExportProductline", { organization_id: org }), query: { start_date: monthAgo, end_date: today } },
  { name: "usage", permission: "billing.read", path: () => opPath("getUsage", { org_id: org }), query: { start_date: monthAgo, end_date: today } },
  { name: "usage options", permission: "billing.read", path: () => opPath("getUsageOptions", { organization_id: org }) },
  { name: "usage export", permission: "billing.read", path: () => opPath("getUsageExport", { organization_id: org }), query: { start_date: monthAgo, end_date: today, projects: "x", resources: "x", resource_types: "x", regions: "x" } },
  { name: "quotas", permission: "billing.read", path: () => opPath("listOrgQuotas", { organization_id: org }) },
  { name: "audit-log search", permission: "audit.read", path: () => opPath("getAuditLogs", { organization_id: org }) },
];

const expected: Record<Who, (p: string) => number> = {
  owner: () => 200,
  auditor: () => 200,
  member: () => 403,
  outsider: () => 403,
};

describe("permissions that mean something", () => {
  for (const op of GUARDED) {
    it(`${op.name} needs ${op.permission}`, async () => {
      for (const who of ["owner", "auditor", "member", "outsider"] as const) {
        const res = await t.call(who, "GET", op.path(), { query: op.query });
        expect(res.status, `${who} on ${op.name}`).toBe(expected[who](op.permission));
        if (res.status === 403) expect(((await res.json()) as { message: string }).message).toMatch(op.permission === "billing.read" && who === "member" ? /billing\.read/ : /./);
      }
    });
  }

  it("membership-only operations still answer the member (reservations)", async () => {
    expect((await t.call("member", "GET", opPath("getReservations", { organization_id: org }))).status).toBe(200);
  });

  it("role bindings: the member sees only their own, the auditor (iam.read) everyone's", async () => {
    type Bindings = { role_bindings: Array<{ customer_id: string }> };
    const mine = await t.json<Bindings>("member", "GET", opPath("listRoleBindings"));
    expect(new Set(mine.body.role_bindings.map((b) => b.customer_id))).toEqual(new Set([t.demo.member.user_id]));
    const others = await t.json<Bindings>("member", "GET", opPath("listRoleBindings"), { query: { user_id: t.demo.owner.user_id } });
    expect(others.body.role_bindings).toEqual([]);
    const all = await t.json<Bindings>("auditor", "GET", opPath("listRoleBindings"));
    expect(new Set(all.body.role_bindings.map((b) => b.customer_id))).toEqual(new Set([t.demo.owner.user_id, t.demo.member.user_id, t.demo.auditor.user_id]));
  });

  it("owners hold every permission even without a binding granting it", async () => {
    type Bindings = { role_bindings: Array<{ id: string; role_name: string; customer_id: string }> };
    const own = await t.json<Bindings>("owner", "GET", opPath("listRoleBindings"), { query: { user_id: t.demo.owner.user_id } });
    const admin = own.body.role_bindings.find((b) => b.role_name === "Organization Admin")!;
    const dropped = await t.call("owner", "POST", opPath("applyRoleBindings", { user_id: t.demo.owner.user_id }), { body: { bindings_to_create: [], bindings_to_delete: [admin.id] } });
    expect(dropped.status).toBe(200);
    expect((await t.call("owner", "GET", opPath("getAuditLogs", { organization_id: org }))).status).toBe(200);
    expect((await t.call("owner", "GET", opPath("getBillingOptions", { organization_id: org }))).status).toBe(200);
  });

  it("a binding granting billing.read opens billing to the member", async () => {
    type Roles = { roles: Array<{ id: string; role_name: string; org_id: string }> };
    const roles = await t.json<Roles>("owner", "GET", opPath("listRoles"));
    const viewer = roles.body.roles.find((r) => r.role_name === "Billing Viewer" && r.org_id === org)!;
    const apply = await t.call("owner", "POST", opPath("applyRoleBindings", { user_id: t.demo.member.user_id }), {
      body: { bindings_to_create: [{ customer_id: t.demo.member.user_id, role_id: viewer.id, scope_type: "org", scope_object_id: org }], bindings_to_delete: [] },
    });
    expect(apply.status).toBe(200);
    expect((await t.call("member", "GET", opPath("getBillingOptions", { organization_id: org }))).status).toBe(200);
    expect((await t.call("member", "GET", opPath("getAuditLogs", { organization_id: org }))).status).toBe(403);
  });
});
