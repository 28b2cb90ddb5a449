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
    const { body } = await t.json<Entities>("owner", "GET", "/organizations/entities");
    const org = body.items.find((o) => o.id === t.demo.organization_id);
    expect(org?.permissions).toEqual(expect.arrayContaining(["projects.create", "iam.write", "organization.update"]));
  });

  it("lists none for the member, and follows a new binding", async () => {
    const read = async () =>
      (await t.json<Entities>("member", "GET", "/organizations/entities")).body.items.find((o) => o.id === t.demo.organization_id)?.permissions;
    expect(await read()).toEqual([]);
    const roles = await t.json<{ roles: Array<{ id: string; role_name: string; org_id: string }> }>("owner", "GET", "/iam/roles");
    const creator = roles.body.roles.find((r) => r.role_name === "Project Creator" && r.org_id === t.demo.organization_id)!;
    const apply = await t.call("owner", "POST", `/iam/users/${t.demo.member.user_id}/role-bindings`, {
      body: {
        bindings_to_create: [{ customer_id: t.demo.member.user_id, role_id: creator.id, scope_type: "org", scope_object_id: t.demo.organization_id }],
        bindings_to_delete: [],
      },
    });
    expect(apply.status).toBe(200);
    expect(await read()).toEqual(["projects.create"]);
  });
});
