import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashSecret } from "../../crypto";
import { scimTokens } from "../../store/schema";
import { createTestGateway, opPath, type TestGateway } from "../../testing";

let t: TestGateway;
let base: string;
beforeAll(async () => {
  t = await createTestGateway();
  base = opPath("listSCIMIntegrations", { org_id: t.demo.organization_id });
});
afterAll(() => t.close());

interface Integration {
  id: string;
  organization_id: string;
  name: string;
  identity_provider: string;
  token_ids: string[];
  status: string;
  created_at: string;
  updated_at: string;
  created_by: string;
  last_activity_at?: string;
  user_count: number;
}
interface ApiKeyInfo {
  key_id: string;
  api_key: string;
  alias: string;
  created_at: string;
  expires_at: string;
}
interface TokenInfo {
  key_id: string;
  alias: string;
  created_at: string;
  expires_at: string;
  last_used: string;
  user_id: string;
}
interface ErrorBody {
  code: string;
  message: string;
  reason: string;
}

const future = (days = 30) => new Date(Date.now() + days * 86_400_000).toISOString();

const list = (who: "owner" | "member" | "outsider" = "owner") => t.opJson<{ integrations: Integration[] } & ErrorBody>(who, "listSCIMIntegrations", { params: { org_id: t.demo.organization_id } });
const create = (body: unknown, who: "owner" | "member" | "outsider" = "owner") =>
  t.opJson<{ integration: Integration; api_key_info?: ApiKeyInfo } & ErrorBody>(who, "createSCIMIntegration", { params: { org_id: t.demo.organization_id }, body });
const tokens = (id: string, who: "owner" | "member" | "outsider" = "owner") => t.opJson<{ items: TokenInfo[] } & ErrorBody>(who, "listSCIMIntegrationTokens", { params: { org_id: t.demo.organization_id, integration_id: id } });

describe("reading SCIM integrations", () => {
  it("lists the demo organization's integrations with every required field, and no other organization's", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.integrations.map((i) => i.name)).toEqual(["Okta SCIM Integration", "Entra ID (staging)"]);
    const okta = res.body.integrations[0]!;
    expect(okta).toMatchObject({
      organization_id: t.demo.organization_id,
      identity_provider: "okta",
      status: "active",
      // Computed: nobody has been provisioned and no token used yet, so nothing is claimed.
      user_count: 0,
      created_by: t.demo.owner.user_id,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect(okta).not.toHaveProperty("last_activity_at");
    expect(okta.token_ids).toHaveLength(2);
    expect(res.body.integrations[1]).toMatchObject({ status: "inactive", token_ids: [] });
    expect(res.body.integrations[1]).not.toHaveProperty("last_activity_at");
  });

  it("lets a member read integrations and tokens", async () => {
    const res = await list("member");
    expect(res.status).toBe(200);
    const okta = res.body.integrations[0]!;
    expect((await t.opJson("member", "getSCIMIntegration", { params: { org_id: t.demo.organization_id, integration_id: okta.id } })).status).toBe(200);
    const tokenList = await tokens(okta.id, "member");
    expect(tokenList.status).toBe(200);
    expect(tokenList.body.items.map((i) => i.key_id).sort()).toEqual([...okta.token_ids].sort());
    expect(tokenList.body.items[0]).toMatchObject({ alias: expect.any(String), created_at: expect.any(String), expires_at: expect.any(String), last_used: expect.any(String), user_id: t.demo.owner.user_id });
  });

  it("refuses an outsider every read with 403", async () => {
    const okta = (await list()).body.integrations[0]!;
    for (const path of [base, opPath("getSCIMIntegration", { org_id: t.demo.organization_id, integration_id: okta.id }), opPath("listSCIMIntegrationTokens", { org_id: t.demo.organization_id, integration_id: okta.id }), opPath("getSCIMIntegration", { org_id: t.demo.organization_id, integration_id: "no-such-id" })]) {
      const res = await t.json<ErrorBody>("outsider", "GET", path);
      expect(res.status, path).toBe(403);
      expect(res.body.reason).toBe("permission_denied");
    }
  });

  it("answers 404 for an unknown or malformed integration id", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      expect((await t.opJson("owner", "getSCIMIntegration", { params: { org_id: t.demo.organization_id, integration_id: id } })).status, id).toBe(404);
      expect((await tokens(id)).status, id).toBe(404);
    }
    // Text the store cannot hold is refused before any lookup, never a 500.
    expect([400, 404]).toContain((await t.json("owner", "GET", `${base}/a%00b`)).status); // by hand: an escaped NUL in the segment
  });

  it("does not show another organization's integration through this organization's path", async () => {
    const globex = (await t.opJson<{ integrations: Integration[] }>("outsider", "listSCIMIntegrations", { params: { org_id: (await t.outsiderOrganizationId()) } })).body.integrations[0]!;
    expect((await t.opJson("owner", "getSCIMIntegration", { params: { org_id: t.demo.organization_id, integration_id: globex.id } })).status).toBe(404);
  });

  it("answers 401 to an unsigned request", async () => {
    expect((await t.gateway.app.request(`http://gateway.test/v1${base}`)).status).toBe(401);
  });
});

describe("creating, updating and deleting integrations", () => {
  it("creates an integration without a token: no api_key_info, audited", async () => {
    const { result: res, entries } = await t.audited(() => create({ name: "OneLogin", identity_provider: "onelogin" }));
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty("api_key_info");
    expect(res.body.integration).toMatchObject({ name: "OneLogin", identity_provider: "onelogin", status: "active", token_ids: [], user_count: 0, created_by: t.demo.owner.user_id });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ organizationId: t.demo.organization_id, action: "Create", result: "OK", targetType: "SCIMIntegration", targetIds: [res.body.integration.id], targetNames: ["OneLogin"] });
    expect((await list()).body.integrations.map((i) => i.id)).toContain(res.body.integration.id);
  });

  it("creates an integration with an inline token whose secret is shown once and stored only as a hash", async () => {
    const expires = future(90);
    const res = await create({ name: "Okta (prod)", identity_provider: "okta", token: { alias: "first", expires_at: expires } });
    expect(res.status).toBe(200);
    const info = res.body.api_key_info!;
    expect(info).toMatchObject({ alias: "first", expires_at: new Date(expires).toISOString(), key_id: expect.stringMatching(/^[\w-]{22}$/) });
    expect(info.api_key.length).toBeGreaterThan(30);
    expect(res.body.integration.token_ids).toEqual([info.key_id]);

    const [stored] = await t.gateway.store.db.select().from(scimTokens).where(eq(scimTokens.id, info.key_id));
    expect(stored?.secretHash).toBe(hashSecret(info.api_key));
    expect(JSON.stringify(stored)).not.toContain(info.api_key);

    for (const path of [base, opPath("getSCIMIntegration", { org_id: t.demo.organization_id, integration_id: res.body.integration.id }), opPath("listSCIMIntegrationTokens", { org_id: t.demo.organization_id, integration_id: res.body.integration.id })]) {
      const text = await (await t.call("owner", "GET", path)).text();
      expect(text, path).not.toContain(info.api_key);
      expect(text, path).toContain(info.key_id);
    }
  });

  it.each([
    ["no name", { identity_provider: "okta" }, "body.name: is required"],
    ["an empty name", { name: "", identity_provider: "okta" }, "body.name"],
    ["a numeric name", { name: 5, identity_provider: "okta" }, "body.name: must be a string"],
    ["an empty identity provider", { name: "x", identity_provider: " " }, "body.identity_provider"],
    ["a token without expiry", { name: "x", identity_provider: "okta", token: { alias: "a" } }, "body.token.expires_at: is required"],
    ["a token with a past expiry", { name: "x", identity_provider: "okta", token: { alias: "a", expires_at: "2020-01-01T00:00:00Z" } }, "body.token.expires_at: must be in the future"],
    ["a token with a non-RFC 3339 expiry", { name: "x", identity_provider: "okta", token: { alias: "a", expires_at: "next tuesday" } }, "body.token.expires_at: must be an RFC 3339"],
    ["a token with an empty alias", { name: "x", identity_provider: "okta", token: { alias: "", expires_at: future() } }, "body.token.alias"],
    ["a null body", null, "body"],
  ])("answers 400 for %s, naming the field, and creates nothing", async (_name, body, field) => {
    const before = (await list()).body.integrations.length;
    const { result: res, entries } = await t.audited(() => create(body));
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
    expect((await list()).body.integrations).toHaveLength(before);
    expect(entries.map((e) => e.result)).toEqual(["INVALID_ARGUMENT"]);
  });

  it("refuses writes to the member (403, audited) and to an outsider", async () => {
    const okta = (await list()).body.integrations[0]!;
    const { result: res, entries } = await t.audited(() => create({ name: "Member's", identity_provider: "okta" }, "member"));
    expect(res.status).toBe(403);
    expect(entries[0]).toMatchObject({ organizationId: t.demo.organization_id, result: "PERMISSION_DENIED", actorId: t.demo.member.user_id });
    const writes: Array<[string, string, unknown]> = [
      ["PATCH", opPath("updateSCIMIntegration", { org_id: t.demo.organization_id, integration_id: okta.id }), { status: "inactive" }],
      ["DELETE", opPath("deleteSCIMIntegration", { org_id: t.demo.organization_id, integration_id: okta.id }), undefined],
      ["POST", opPath("createSCIMIntegrationToken", { org_id: t.demo.organization_id, integration_id: okta.id }), { alias: "x", expires_at: future() }],
      ["DELETE", opPath("deleteSCIMIntegrationToken", { org_id: t.demo.organization_id, integration_id: okta.id, access_key_id: okta.token_ids[0]! }), undefined],
    ];
    for (const who of ["member", "outsider"] as const) {
      expect((await create({ name: "x", identity_provider: "okta" }, who)).status).toBe(403);
      for (const [method, path, body] of writes) {
        expect((await t.json(who, method, path, { body })).status, `${who} ${method} ${path}`).toBe(403);
      }
    }
    const after = (await list()).body.integrations[0]!;
    expect(after).toMatchObject({ status: okta.status, token_ids: okta.token_ids });
  });

  it("updates the status, validating it", async () => {
    const okta = (await list()).body.integrations[0]!;
    const { result: res, entries } = await t.audited(() => t.opJson<Integration>("owner", "updateSCIMIntegration", { params: { org_id: t.demo.organization_id, integration_id: okta.id }, body: { status: "inactive" } }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: okta.id, status: "inactive", token_ids: okta.token_ids });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(okta.updated_at));
    expect(entries[0]).toMatchObject({ action: "Update", result: "OK", targetIds: [okta.id], targetNames: [okta.name], targetType: "SCIMIntegration" });
    expect((await t.opJson<Integration>("owner", "getSCIMIntegration", { params: { org_id: t.demo.organization_id, integration_id: okta.id } })).body.status).toBe("inactive");

    for (const status of ["paused", "", 1, null]) {
      const bad = await t.opJson<ErrorBody>("owner", "updateSCIMIntegration", { params: { org_id: t.demo.organization_id, integration_id: okta.id }, body: { status } });
      expect(bad.status, String(status)).toBe(400);
      expect(bad.body.message).toContain("body.status");
    }
    expect((await t.opJson<Integration>("owner", "updateSCIMIntegration", { params: { org_id: t.demo.organization_id, integration_id: okta.id }, body: { status: "active" } })).body.status).toBe("active");
    expect((await t.opJson("owner", "updateSCIMIntegration", { params: { org_id: t.demo.organization_id, integration_id: "00000000-0000-4000-8000-000000000000" }, body: { status: "active" } })).status).toBe(404);
  });

  it("deletes an integration with its tokens; a repeated delete is 404", async () => {
    const created = await create({ name: "Doomed", identity_provider: "okta", token: { alias: "t", expires_at: future() } });
    const id = created.body.integration.id;
    const { result: res, entries } = await t.audited(() => t.op("owner", "deleteSCIMIntegration", { params: { org_id: t.demo.organization_id, integration_id: id } }));
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect(entries[0]).toMatchObject({ action: "Delete", result: "OK", targetIds: [id], targetNames: ["Doomed"] });
    expect((await t.opJson("owner", "getSCIMIntegration", { params: { org_id: t.demo.organization_id, integration_id: id } })).status).toBe(404);
    expect(await t.gateway.store.db.select().from(scimTokens).where(eq(scimTokens.integrationId, id))).toEqual([]);

    const again = await t.audited(() => t.opJson<ErrorBody>("owner", "deleteSCIMIntegration", { params: { org_id: t.demo.organization_id, integration_id: id } }));
    expect(again.result.status).toBe(404);
    expect(again.result.body.reason).toBe("not_found");
    expect(again.entries.map((e) => e.result)).toEqual(["NOT_FOUND"]);
    expect((await t.opJson("owner", "deleteSCIMIntegration", { params: { org_id: t.demo.organization_id, integration_id: "not-a-uuid" } })).status).toBe(404);
  });
});

describe("SCIM tokens", () => {
  let integrationId: string;
  beforeAll(async () => {
    integrationId = (await create({ name: "Token host", identity_provider: "jumpcloud" })).body.integration.id;
  });

  it("creates tokens whose secrets never appear in listings, so rotation can overlap", async () => {
    const path = opPath("listSCIMIntegrationTokens", { org_id: t.demo.organization_id, integration_id: integrationId });
    const first = await t.audited(() => t.json<{ api_key_info: ApiKeyInfo }>("owner", "POST", path, { body: { alias: "blue", expires_at: future(10) } }));
    expect(first.result.status).toBe(200);
    expect(first.entries[0]).toMatchObject({ action: "Create", result: "OK", targetType: "SCIMToken", targetIds: [first.result.body.api_key_info.key_id], targetNames: ["blue"] });
    const second = await t.json<{ api_key_info: ApiKeyInfo }>("owner", "POST", path, { body: { alias: "green", expires_at: future(40) } });
    const secrets = [first.result.body.api_key_info.api_key, second.body.api_key_info.api_key];
    expect(secrets[0]).not.toBe(secrets[1]);

    const listing = await t.call("owner", "GET", path);
    const text = await listing.text();
    for (const secret of secrets) expect(text).not.toContain(secret);
    const items = (JSON.parse(text) as { items: TokenInfo[] }).items;
    expect(items.map((i) => i.alias)).toEqual(["blue", "green"]);
    expect(items[0]).toMatchObject({ last_used: "", user_id: t.demo.owner.user_id });
    expect(items[0]).not.toHaveProperty("api_key");
    expect((await t.opJson<Integration>("owner", "getSCIMIntegration", { params: { org_id: t.demo.organization_id, integration_id: integrationId } })).body.token_ids).toEqual(items.map((i) => i.key_id));
  });

  it.each([
    ["no alias", { expires_at: future() }, "body.alias: is required"],
    ["an empty alias", { alias: "  ", expires_at: future() }, "body.alias"],
    ["no expiry", { alias: "a" }, "body.expires_at: is required"],
    ["a past expiry", { alias: "a", expires_at: new Date(Date.now() - 1000).toISOString() }, "body.expires_at: must be in the future"],
    ["an expiry without a zone", { alias: "a", expires_at: "2031-01-01T00:00:00" }, "body.expires_at"],
    ["an impossible date", { alias: "a", expires_at: "2031-02-30T00:00:00Z" }, "body.expires_at"],
    ["a numeric expiry", { alias: "a", expires_at: 1_900_000_000 }, "body.expires_at"],
  ])("answers 400 for %s", async (_name, body, field) => {
    const res = await t.opJson<ErrorBody>("owner", "createSCIMIntegrationToken", { params: { org_id: t.demo.organization_id, integration_id: integrationId }, body });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
  });

  it("answers 404 for tokens of a missing integration", async () => {
    const res = await t.opJson("owner", "createSCIMIntegrationToken", { params: { org_id: t.demo.organization_id, integration_id: "00000000-0000-4000-8000-000000000000" }, body: { alias: "a", expires_at: future() } });
    expect(res.status).toBe(404);
  });

  it("deletes a token, audited; a repeated delete and an unknown key are 404", async () => {
    const path = opPath("listSCIMIntegrationTokens", { org_id: t.demo.organization_id, integration_id: integrationId });
    const before = (await tokens(integrationId)).body.items;
    const victim = before[0]!;
    const { result: res, entries } = await t.audited(() => t.call("owner", "DELETE", `${path}/${victim.key_id}`));
    expect(res.status).toBe(204);
    expect(entries[0]).toMatchObject({ action: "Delete", result: "OK", targetType: "SCIMToken", targetIds: [victim.key_id], targetNames: [victim.alias] });
    expect((await tokens(integrationId)).body.items.map((i) => i.key_id)).toEqual(before.slice(1).map((i) => i.key_id));

    const again = await t.audited(() => t.json("owner", "DELETE", `${path}/${victim.key_id}`));
    expect(again.result.status).toBe(404);
    expect(again.entries.map((e) => e.result)).toEqual(["NOT_FOUND"]);
    expect((await t.json("owner", "DELETE", `${path}/AAAAAAAAAAAAAAAAAAAAAA`)).status).toBe(404);
    expect((await t.json("owner", "DELETE", `${path}/x`)).status).toBe(404);
  });

  it("does not delete a token through another integration's path", async () => {
    const okta = (await list()).body.integrations[0]!;
    const res = await t.opJson("owner", "deleteSCIMIntegrationToken", { params: { org_id: t.demo.organization_id, integration_id: integrationId, access_key_id: okta.token_ids[0]! } });
    expect(res.status).toBe(404);
    expect((await tokens(okta.id)).body.items.map((i) => i.key_id)).toContain(okta.token_ids[0]);
  });
});
