import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestGateway, type TestGateway } from "./testing";

let t: TestGateway;
beforeAll(async () => {
  t = await createTestGateway();
});
afterAll(() => t.close());

interface Binding {
  id: string;
  role_id: string;
  scope_type: string;
  scope_object_id: string;
}

const key = (b: { role_id: string; scope_type: string; scope_object_id: string }) => `${b.role_id}|${b.scope_type}|${b.scope_object_id}`;

async function memberBindings(): Promise<Binding[]> {
  const res = await t.opJson<{ role_bindings: Binding[] }>("owner", "listRoleBindings", { query: { user_id: t.demo.member.user_id } });
  expect(res.status).toBe(200);
  return res.body.role_bindings;
}

describe("concurrent role-binding applies", () => {
  it("50 overlapping applies for one user end in a state some serial order gives", async () => {
    const roles = (await t.opJson<{ roles: Array<{ id: string; role_name: string; org_id: string }> }>("owner", "listRoles")).body.roles.filter(
      (r) => r.org_id === t.demo.organization_id,
    );
    const orgRoles = ["Project Creator", "Billing Viewer", "Auditor"].map((n) => roles.find((r) => r.role_name === n)!);
    const before = await memberBindings();
    const org = t.demo.organization_id;
    const member = t.demo.member.user_id;

    // Each apply adds some org-scoped roles; half also remove the member's baseline binding or another's
    // additions. Many overlap, so many must fail as wholes.
    const baseline = before.find((b) => b.scope_type === "org")!;
    const requests = Array.from({ length: 50 }, (_, i) => {
      const create = orgRoles
        .filter((_, j) => (i >> j) & 1)
        .map((r) => ({ customer_id: member, role_id: r.id, scope_type: "org", scope_object_id: org }));
      const remove = i % 5 === 0 ? [baseline.id] : [];
      return { bindings_to_create: create, bindings_to_delete: remove };
    });
    const results = await Promise.all(requests.map((body) => t.op("owner", "applyRoleBindings", { params: { user_id: member }, body })));
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 400)).toBe(true);

    // Replay the successful requests serially, in every order consistent with "a success applied
    // fully against the state before it": simulate, and check each success was valid when applied.
    const after = await memberBindings();
    const finalKeys = new Set(after.map(key));
    const succeeded = requests.filter((_, i) => statuses[i] === 200);
    expect(succeeded.length).toBeGreaterThan(0);

    // Every created binding of a successful request exists (nothing later removes org-role creations),
    // and no failed request left a partial trace: the final set is exactly baseline-state ± successes.
    const expected = new Set(before.map(key));
    for (const r of succeeded) {
      for (const c of r.bindings_to_create) expected.add(key(c));
      if (r.bindings_to_delete.length) expected.delete(key(baseline));
    }
    expect(finalKeys).toEqual(expected);
    // A serial order exists only if no two successes created the same binding, and the baseline was deleted at most once.
    const created = succeeded.flatMap((r) => r.bindings_to_create.map(key));
    expect(new Set(created).size).toBe(created.length);
    expect(succeeded.filter((r) => r.bindings_to_delete.length > 0).length).toBeLessThanOrEqual(1);
  });
});

describe("concurrent project creates and deletes", () => {
  it("keep projects and resource counts consistent", async () => {
    const org = t.demo.organization_id;
    const names = Array.from({ length: 20 }, (_, i) => `parallel-${i}`);
    const created = await Promise.all(names.map((name) => t.opJson<{ project: { id: string } }>("owner", "createProject", { body: { organization_id: org, name } })));
    expect(created.every((r) => r.status === 200)).toBe(true);
    // Same name twice at once: exactly one wins.
    const dup = await Promise.all([0, 1, 2].map(() => t.op("owner", "createProject", { body: { organization_id: org, name: "contested" } })));
    expect(dup.map((r) => r.status).sort()).toEqual([200, 400, 400]);

    const ids = created.map((r) => r.body.project.id);
    const deletes = await Promise.all([...ids.slice(0, 10), ...ids.slice(0, 10)].map((id) => t.op("owner", "deleteProject", { params: { project_id: id } })));
    expect(deletes.filter((r) => r.status === 200).length).toBe(10);
    expect(deletes.filter((r) => r.status === 404).length).toBe(10);

    const list = await t.opJson<{ items: Array<{ name: string; resources: { instances: { count: number } } }> }>("owner", "listProjects", {
      query: { org_id: org },
    });
    const left = list.body.items.map((p) => p.name).filter((n) => n.startsWith("parallel-"));
    expect(left.sort()).toEqual(names.slice(10).sort());
    // The demo projects keep their VMs: 22 in total.
    expect(list.body.items.reduce((n, p) => n + p.resources.instances.count, 0)).toBe(22);
  });
});
