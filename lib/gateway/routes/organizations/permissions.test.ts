import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
});
