import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { addMember, createApiKey, createUser } from "../../admin";
import { memberships } from "../../store/schema";
import { createTestGateway, type TestGateway } from "../../testing";

let t: TestGateway;
let projects: Map<string, string>;
beforeAll(async () => {
  t = await createTestGateway();
  const res = await t.opJson<{ items: Array<{ id: string; name: string }> }>("owner", "listProjects", {
    query: { org_id: t.demo.organization_id, skip_loading_project_resources: "true" },
  });
  projects = new Map(res.body.items.map((p) => [p.name, p.id]));
});
afterAll(() => t.close());

type Flags = { feature_flags: Record<string, unknown> };
interface RpcStatus {
  code: number;
  message: string;
  details: unknown[];
}

const flags = (who: "owner" | "member" | "outsider", projectId?: string) =>
  t.opJson<Flags & RpcStatus>(who, "getFeatureFlags", { query: projectId === undefined ? {} : { project_id: projectId } });

describe("GET /featureflags", () => {
  it("evaluates every flag for the user and their organization", async () => {
    const owner = await flags("owner");
    expect(owner.status).toBe(200);
    expect(owner.body.feature_flags).toEqual({
      reservations: true,
      usage_dashboard: true,
      audit_log_export: true,
      image_catalog_v2: false,
      max_vms_per_request: 32,
    });
    const member = await flags("member");
    expect(member.body.feature_flags).toMatchObject({ reservations: false, max_vms_per_request: 32 });
    const outsider = await flags("outsider");
    expect(outsider.body.feature_flags).toMatchObject({ reservations: false, max_vms_per_request: 8 });
  });

  it("targets no organization that has suspended the caller", async () => {
    const { db } = t.gateway.store;
    // A member of Acme (whose flags give 32 VMs a request) first, of Globex (8) later.
    const user = await createUser(db, { email: "suspended-flags@acme.example" });
    const key = await createApiKey(db, t.gateway.deps.masterKey, user.id, "test");
    const caller = { user_id: user.id, email: user.email, access_key_id: key.accessKeyId, secret_key: key.secretKey };
    await addMember(db, t.demo.organization_id, user.id, "member");
    await addMember(db, await t.outsiderOrganizationId(), user.id, "member");
    const ask = () => t.opJson<Flags>(caller, "getFeatureFlags");
    expect((await ask()).body.feature_flags).toMatchObject({ max_vms_per_request: 32 });
    await db.update(memberships).set({ status: "suspended" }).where(and(eq(memberships.userId, user.id), eq(memberships.organizationId, t.demo.organization_id)));
    expect((await ask()).body.feature_flags).toMatchObject({ max_vms_per_request: 8 });
  });

  it("adds the project to the targeting context for a member of the project", async () => {
    const sandbox = projects.get("research-sandbox")!;
    const res = await flags("member", sandbox);
    expect(res.status).toBe(200);
    expect(res.body.feature_flags).toMatchObject({ image_catalog_v2: true, max_vms_per_request: 32, reservations: false });
    expect((await flags("member", projects.get("llm-training")!)).body.feature_flags.image_catalog_v2).toBe(false);
    expect((await flags("owner", sandbox)).body.feature_flags).toMatchObject({ image_catalog_v2: true, reservations: true });
  });

  it("refuses a project the caller is not a member of with 403, as the error status object", async () => {
    const res = await flags("member", projects.get("data-pipeline")!);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 7, message: expect.stringContaining("not a member of this project"), details: [] });
    expect((await flags("outsider", projects.get("research-sandbox")!)).status).toBe(403);
  });

  it("answers an unknown project with the same 403 as a hidden one", async () => {
    const unknown = await flags("owner", "00000000-0000-4000-8000-000000000000");
    const hidden = await flags("member", projects.get("staging")!);
    expect(unknown.status).toBe(403);
    expect(unknown.body.message).toBe(hidden.body.message);
  });

  it("answers 400 naming project_id when it is not a project id", async () => {
    const res = await flags("owner", "../etc");
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 3, details: [] });
    expect(res.body.message).toContain("query.project_id");
  });

  it("answers 401 with the error body to an unsigned request", async () => {
    const res = await t.gateway.app.request("http://gateway.test/v1/featureflags");
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: "401", reason: "unauthenticated" });
  });
});
