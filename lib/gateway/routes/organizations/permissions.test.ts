import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roleBindings } from "../../store/schema";
import { createTestGateway, type TestGateway } from "../../testing";

let t: TestGateway;
beforeAll(async () => {
  t = await createTestGateway();
});
afterAll(() => t.close());

type Entities = { items: Array<{ id: string; permissions?: string[] }> };

describe("the entity's permissions extension", () => {
  it("lists the owner's organization-wide permissions", async () => {
    const { body } = await t.opJson<Entities>("owner", "getOrganizations");
    const org = body.items.find((o) => o.id === t.demo.organization_id);
    expect(org?.permissions).toEqual(expect.arrayContaining(["projects.create", "iam.write", "organization.update"]));
  });

  it("lists none for the member, and follows a new binding", async () => {
    const read = async () =>
      (await t.opJson<Entities>("member", "getOrganizations")).body.items.find((o) => o.id === t.demo.organization_id)?.permissions;
    expect(await read()).toEqual([]);
    const roles = await t.opJson<{ roles: Array<{ id: string; role_name: string; org_id: string }> }>("owner", "listRoles");
    const creator = roles.body.roles.find((r) => r.role_name === "Project Creator" && r.org_id === t.demo.organization_id)!;
    const apply = await t.op("owner", "applyRoleBindings", { params: { user_id: t.demo.member.user_id },
      body: {
        bindings_to_create: [{ customer_id: t.demo.member.user_id, role_id: creator.id, scope_type: "org", scope_object_id: t.demo.organization_id }],
        bindings_to_delete: [],
      },
    });
    expect(apply.status).toBe(200);
    expect(await read()).toEqual(["projects.create"]);
  });

  it("lists organization.update for owners only: an Organization Admin who is not one cannot update the organization", async () => {
    const roles = await t.opJson<{ roles: Array<{ id: string; role_name: string; org_id: string }> }>("owner", "listRoles");
    const admin = roles.body.roles.find((r) => r.role_name === "Organization Admin" && r.org_id === t.demo.organization_id)!;
    const binding = { customer_id: t.demo.member.user_id, role_id: admin.id, scope_type: "org", scope_object_id: t.demo.organization_id };
    const apply = (body: unknown) => t.op("owner", "applyRoleBindings", { params: { user_id: t.demo.member.user_id }, body });
    expect((await apply({ bindings_to_create: [binding], bindings_to_delete: [] })).status).toBe(200);
    try {
      const permissions = (await t.opJson<Entities>("member", "getOrganizations")).body.items.find((o) => o.id === t.demo.organization_id)?.permissions;
      expect(permissions).toEqual(expect.arrayContaining(["iam.write", "sso.manage"]));
      expect(permissions).not.toContain("organization.update");
      // The caller's permissions say the same.
      const caller = await t.opJson<{ permissions: string[] }>("member", "getCallerPermissions", { params: { org_id: t.demo.organization_id } });
      expect(caller.body.permissions).toEqual(expect.arrayContaining(["iam.write"]));
      expect(caller.body.permissions).not.toContain("organization.update");
      const update = await t.op("member", "updateOrganization", { query: { org_id: t.demo.organization_id }, body: { company_name: "Not theirs to rename" } });
      expect(update.status).toBe(403);
    } finally {
      await t.gateway.store.db.delete(roleBindings).where(and(eq(roleBindings.userId, t.demo.member.user_id), eq(roleBindings.roleId, admin.id)));
    }
  });
});
