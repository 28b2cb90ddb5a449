import { request as httpRequest } from "node:http";
import type { ServerType } from "@hono/node-server";
import { and, asc, desc, eq } from "drizzle-orm";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addMember, createApiKey, createUser } from "../../admin";
import type { Database } from "../../store/client";
import { listen } from "../../server";
import { removePerson } from "../../store/queries/people";
import { apiKeys, auditLog, memberships, roleBindings, roles, scimGroupMembers, scimIntegrations, scimTokens, ssoProviders } from "../../store/schema";
import { createTestGateway, opPath, type TestGateway } from "../../testing";
import { onScimError } from "./service";
import { freePort } from "@/scripts/free-port";

/**
 * The SCIM 2.0 service over real HTTP, replaying the request sequences Okta's and Microsoft
 * Entra ID's provisioning send, and checking the effects through the gateway's own API.
 */

let t: TestGateway;
let server: ServerType;
let root: string;
let orgId: string;
let oktaToken: string;
let entraToken: string;
let oktaIntegration: string;
let entraIntegration: string;

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";

type Json = Record<string, unknown> & { Resources?: Array<Record<string, unknown>> };


async function scim(token: string | null, method: string, path: string, body?: unknown, raw?: string): Promise<{ status: number; body: Json; headers: Headers }> {
  const headers: Record<string, string> = { Accept: "application/scim+json" };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined || raw !== undefined) headers["Content-Type"] = "application/scim+json; charset=utf-8";
  const res = await fetch(`${root}/scim/v2${path}`, { method, headers, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json, headers: res.headers };
}

const future = (days = 30) => new Date(Date.now() + days * 86_400_000).toISOString();

async function newIntegration(name: string, provider: string): Promise<{ id: string; token: string }> {
  const res = await t.json<{ integration: { id: string }; api_key_info: { api_key: string } }>("owner", "POST", opPath("createSCIMIntegration", { org_id: orgId }), {
    body: { name, identity_provider: provider, token: { alias: `${provider}-token`, expires_at: future() } },
  });
  expect(res.status).toBe(200);
  return { id: res.body.integration.id, token: res.body.api_key_info.api_key };
}

beforeAll(async () => {
  t = await createTestGateway();
  orgId = t.demo.organization_id;
  const port = await freePort();
  // The standalone gateway's own server: its answers coalesced, its socket limits.
  server = listen(t.gateway.app.fetch, { port, hostname: "127.0.0.1" });
  root = `http://127.0.0.1:${port}`;
  ({ id: oktaIntegration, token: oktaToken } = await newIntegration("Okta", "okta"));
  ({ id: entraIntegration, token: entraToken } = await newIntegration("Entra", "azure-ad"));
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.close();
});

describe("authentication and discovery", () => {
  it("refuses a missing, unknown, expired or deleted token and an inactive integration with a SCIM 401", async () => {
    for (const token of [null, "scim_nope"]) {
      const res = await scim(token, "GET", "/Users");
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ schemas: [ERROR], status: "401" });
      expect(res.headers.get("content-type")).toContain("application/scim+json");
    }
    const extra = await newIntegration("Short-lived", "okta");
    expect((await scim(extra.token, "GET", "/Users")).status).toBe(200);
    await t.gateway.store.db.update(scimTokens).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(scimTokens.integrationId, extra.id));
    expect((await scim(extra.token, "GET", "/Users")).status).toBe(401);
    await t.gateway.store.db.update(scimTokens).set({ expiresAt: new Date(Date.now() + 86_400_000) }).where(eq(scimTokens.integrationId, extra.id));
    expect((await t.call("owner", "PATCH", opPath("updateSCIMIntegration", { org_id: orgId, integration_id: extra.id }), { body: { status: "inactive" } })).status).toBe(200);
    expect((await scim(extra.token, "GET", "/Users")).status).toBe(401);
    expect((await t.call("owner", "DELETE", opPath("deleteSCIMIntegration", { org_id: orgId, integration_id: extra.id }))).status).toBe(204);
    expect((await scim(extra.token, "GET", "/Users")).status).toBe(401);
  });

  it("names the Bearer scheme in WWW-Authenticate on a 401 (RFC 6750 §3)", async () => {
    for (const token of [null, "scim_nope"]) expect((await scim(token, "GET", "/Users")).headers.get("www-authenticate")).toBe("Bearer");
  });

  it("marks the token used and the integration active on an accepted call", async () => {
    await scim(oktaToken, "GET", "/ServiceProviderConfig");
    const [token] = await t.gateway.store.db.select().from(scimTokens).where(eq(scimTokens.integrationId, oktaIntegration));
    const [integration] = await t.gateway.store.db.select().from(scimIntegrations).where(eq(scimIntegrations.id, oktaIntegration));
    expect(token!.lastUsedAt).not.toBeNull();
    expect(integration!.lastActivityAt).not.toBeNull();
  });

  it("describes what it supports", async () => {
    const config = await scim(oktaToken, "GET", "/ServiceProviderConfig");
    expect(config.status).toBe(200);
    expect(config.body).toMatchObject({ patch: { supported: true }, bulk: { supported: false }, filter: { supported: true, maxResults: 200 }, sort: { supported: false } });
    const types = await scim(oktaToken, "GET", "/ResourceTypes");
    expect(types.body.Resources!.map((r) => r.id)).toEqual(["User", "Group"]);
    const schemas = await scim(oktaToken, "GET", "/Schemas");
    expect(schemas.body.Resources!.map((r) => r.id)).toContain(ENTERPRISE);
    // Every attribute a User is stored and returned with is described (Entra ID's schema discovery test).
    const described = new Set(((schemas.body.Resources!.find((r) => r.id === USER)!.attributes as Array<{ name: string }>) ?? []).map((a) => a.name));
    for (const name of ["userName", "name", "displayName", "nickName", "profileUrl", "title", "userType", "preferredLanguage", "locale", "timezone", "active", "emails", "phoneNumbers", "ims", "photos", "addresses", "groups", "entitlements", "roles", "x509Certificates", "externalId"]) {
      expect(described.has(name), name).toBe(true);
    }
    expect((await scim(oktaToken, "GET", "/Nope")).status).toBe(404);
  });
});

describe("Okta's provisioning sequence", () => {
  let aliceId: string;

  it("looks a person up by userName, creates them (201 + Location), and finds them again", async () => {
    const lookup = await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent('userName eq "Alice.Smith@Example.com"')}&startIndex=1&count=100`);
    expect(lookup.status).toBe(200);
    expect(lookup.body).toMatchObject({ totalResults: 0, itemsPerPage: 0, startIndex: 1, Resources: [] });
    const created = await scim(oktaToken, "POST", "/Users", {
      schemas: [USER],
      userName: "Alice.Smith@Example.com",
      name: { givenName: "Alice", familyName: "Smith" },
      emails: [{ primary: true, value: "alice.smith@example.com", type: "work" }],
      displayName: "Alice Smith",
      locale: "en-US",
      externalId: "00u1abcd",
      groups: [],
      password: "never-stored",
      active: true,
    });
    expect(created.status).toBe(201);
    aliceId = String(created.body.id);
    expect(created.headers.get("location")).toBe(`${root}/scim/v2/Users/${aliceId}`);
    expect(created.body).toMatchObject({ userName: "Alice.Smith@Example.com", active: true, externalId: "00u1abcd", name: { givenName: "Alice" }, locale: "en-US" });
    expect(created.body).not.toHaveProperty("password");
    expect(created.body.meta).toMatchObject({ resourceType: "User", location: `${root}/scim/v2/Users/${aliceId}` });
    const again = await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent('userName eq "alice.smith@example.com"')}`);
    expect(again.body.totalResults).toBe(1);
    expect(again.body.Resources![0]!.userName).toBe("Alice.Smith@Example.com");
  });

  it("keeps no password however it is named: by its fully qualified name, or under the core schema's URN (RFC 7644 §3.10)", async () => {
    const secret = "Plaintext-Pa55word";
    const bodies = [
      { schemas: [USER], userName: "qualified.one@example.com", [`${USER}:password`]: secret, [`${USER}:displayName`]: "Qualified One" },
      { schemas: [USER], userName: "qualified.two@example.com", [USER]: { password: secret, title: "Engineer" } },
    ];
    for (const body of bodies) {
      const created = await scim(oktaToken, "POST", "/Users", body);
      expect(created.status).toBe(201);
      const read = await scim(oktaToken, "GET", `/Users/${String(created.body.id)}`);
      for (const answer of [created, read]) expect(JSON.stringify(answer.body)).not.toContain(secret);
      const [row] = await t.gateway.store.db.select().from(memberships).where(and(eq(memberships.userId, String(created.body.id)), eq(memberships.organizationId, orgId)));
      expect(JSON.stringify(row?.scimAttributes)).not.toContain(secret);
      // The other attributes so named are read as the bare ones.
      expect(read.body).toMatchObject(body.userName.startsWith("qualified.one") ? { displayName: "Qualified One" } : { title: "Engineer" });
    }
    // A PATCH naming it so keeps none either.
    const [id] = [(await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent('userName eq "qualified.one@example.com"')}`)).body.Resources![0]!.id];
    const patched = await scim(oktaToken, "PATCH", `/Users/${String(id)}`, { schemas: [PATCH], Operations: [{ op: "add", value: { [`${USER}:password`]: secret } }] });
    expect(patched.status).toBe(200);
    const [row] = await t.gateway.store.db.select().from(memberships).where(and(eq(memberships.userId, String(id)), eq(memberships.organizationId, orgId)));
    expect(JSON.stringify(row?.scimAttributes)).not.toContain(secret);
    expect((await scim(oktaToken, "POST", "/Users", { schemas: [USER], userName: "qualified.three@example.com", [USER]: "not an object" })).status).toBe(400);
  });

  it("answers 409 uniqueness for a userName taken in this organization", async () => {
    const dup = await scim(oktaToken, "POST", "/Users", { schemas: [USER], userName: "ALICE.SMITH@example.com" });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ schemas: [ERROR], status: "409", scimType: "uniqueness" });
  });

  it("matches an existing person by their sign-in e-mail, and updates them with PUT", async () => {
    const found = await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent(`userName eq "${t.demo.member.email}"`)}`);
    expect(found.body.totalResults).toBe(1);
    const member = found.body.Resources![0]!;
    expect(member.id).toBe(t.demo.member.user_id);
    const put = await scim(oktaToken, "PUT", `/Users/${member.id}`, { ...member, name: { givenName: "Milo", familyName: "Member" }, title: "Engineer" });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ userName: t.demo.member.email, title: "Engineer", active: true });
  });

  it("deactivates with PATCH replace active, which suspends: the person's API key is refused 403, then restored", async () => {
    const orgCall = () => t.call("member", "GET", opPath("listSCIMIntegrations", { org_id: orgId }));
    expect((await orgCall()).status).toBe(200);
    // Keys the console minted for the member's SSO sessions: one through this organization's provider, one through another's.
    const db = t.gateway.store.db;
    const providers = await db.select({ id: ssoProviders.id, org: ssoProviders.organizationId }).from(ssoProviders);
    const ours = providers.find((p) => p.org === orgId)!.id;
    const theirs = providers.find((p) => p.org !== orgId)!.id;
    const mintedHere = await createApiKey(db, t.gateway.deps.masterKey, t.demo.member.user_id, "Console SSO session", null, ours);
    const mintedThere = await createApiKey(db, t.gateway.deps.masterKey, t.demo.member.user_id, "Console SSO session", null, theirs);
    const off = await scim(oktaToken, "PATCH", `/Users/${t.demo.member.user_id}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    expect((await orgCall()).status).toBe(403);
    // Suspended here: the key of a session this organization's SSO signed in is gone; the other stays.
    const left = (await db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.userId, t.demo.member.user_id))).map((k) => k.id);
    expect(left).not.toContain(mintedHere.accessKeyId);
    expect(left).toContain(mintedThere.accessKeyId);
    expect(left).toContain(t.demo.member.access_key_id);
    const list = await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent("active eq false")}`);
    expect(list.body.Resources!.map((r) => r.id)).toEqual([t.demo.member.user_id]);
    const on = await scim(oktaToken, "PATCH", `/Users/${t.demo.member.user_id}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "active", value: true }] });
    expect(on.body.active).toBe(true);
    expect((await orgCall()).status).toBe(200);
  });

  it("keeps the last owner: suspending or deleting them is a 400 mutability", async () => {
    const owner = t.demo.owner.user_id;
    const off = await scim(oktaToken, "PATCH", `/Users/${owner}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "active", value: false }] });
    expect(off.status).toBe(400);
    expect(off.body).toMatchObject({ scimType: "mutability", status: "400" });
    const del = await scim(oktaToken, "DELETE", `/Users/${owner}`);
    expect(del.status).toBe(400);
    expect((await t.call("owner", "GET", opPath("listSCIMIntegrations", { org_id: orgId }))).status).toBe(200);
  });

  it("files every change as an SCIM audit entry with the integration as actor", async () => {
    const entries = await t.gateway.store.db.select().from(auditLog).where(and(eq(auditLog.organizationId, orgId), eq(auditLog.actorType, "SCIM"))).orderBy(desc(auditLog.seq));
    expect(entries.length).toBeGreaterThanOrEqual(4);
    expect(entries.find((e) => e.result === "OK")).toMatchObject({ actorId: oktaIntegration, surface: "SCIM", result: "OK" });
    expect(entries.map((e) => e.actionDetail)).toEqual(expect.arrayContaining(["SCIM: Create User", "SCIM: Suspend User", "SCIM: Reactivate User"]));
  });

  it("a group change binds nobody whose membership went meanwhile (a removal it raced: the binding would outlive them)", async () => {
    const { db } = t.gateway.store;
    const [role] = await db.select().from(roles).where(and(eq(roles.organizationId, orgId), eq(roles.roleName, "Billing Viewer")));
    const gone = await createUser(db, { email: "raced@rfc.example" });
    await addMember(db, orgId, gone.id, "member");
    const put = await t.call("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: orgId, integration_id: oktaIntegration }), {
      body: { mappings: [{ group_display_name: "raced", role_id: role!.id, scope_type: "org", scope_object_id: orgId }] },
    });
    expect(put.status).toBe(200);
    const group = await scim(oktaToken, "POST", "/Groups", { schemas: [GROUP], displayName: "Raced-away", members: [{ value: gone.id }, { value: t.demo.member.user_id }] });
    expect(group.status).toBe(201);
    const gid = String(group.body.id);
    // What the group's change still reads when a removal of the person commits under it: their group membership, no membership.
    await db.delete(memberships).where(and(eq(memberships.organizationId, orgId), eq(memberships.userId, gone.id)));
    const renamed = await scim(oktaToken, "PATCH", `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "Raced" }] });
    expect(renamed.status).toBe(204);
    const bound = await db.select({ userId: roleBindings.userId }).from(roleBindings).where(eq(roleBindings.viaGroupId, gid));
    expect(bound.map((b) => b.userId)).toEqual([t.demo.member.user_id]);
    expect((await scim(oktaToken, "DELETE", `/Groups/${gid}`)).status).toBe(204);
  });

  it("manages groups as Okta does, and group mappings grant role bindings", async () => {
    const [creator] = await t.gateway.store.db.select().from(roles).where(and(eq(roles.organizationId, orgId), eq(roles.roleName, "Billing Viewer")));
    const put = await t.json<{ mappings: unknown[] }>("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: orgId, integration_id: oktaIntegration }), {
      body: { mappings: [{ group_display_name: "engineering", role_id: creator!.id, scope_type: "org", scope_object_id: orgId }] },
    });
    expect(put.status).toBe(200);
    const group = await scim(oktaToken, "POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Engineering", members: [] });
    expect(group.status).toBe(201);
    const gid = String(group.body.id);
    const add = await scim(oktaToken, "PATCH", `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: "add", path: "members", value: [{ value: t.demo.member.user_id, display: t.demo.member.email }] }],
    });
    expect(add.status).toBe(204);
    const bindings = await t.json<{ role_bindings: Array<{ role_id: string; via_group_id?: string; id: string }> }>("owner", "GET", opPath("listRoleBindings"), {
      query: { user_id: t.demo.member.user_id },
    });
    const granted = bindings.body.role_bindings.find((b) => b.role_id === creator!.id);
    expect(granted?.via_group_id).toBe(gid);
    // A group-granted binding is not removed through role-binding apply.
    const refused = await t.json<{ message: string }>("owner", "POST", opPath("applyRoleBindings", { user_id: t.demo.member.user_id }), {
      body: { bindings_to_create: [], bindings_to_delete: [granted!.id] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("SCIM group");
    // Rename: the mapping no longer matches, the binding goes; rename back, it returns.
    await scim(oktaToken, "PATCH", `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { id: gid, displayName: "Eng renamed" } }] });
    const viaGroup = () => t.gateway.store.db.select().from(roleBindings).where(eq(roleBindings.viaGroupId, gid));
    expect(await viaGroup()).toHaveLength(0);
    await scim(oktaToken, "PATCH", `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "Engineering" }] });
    expect(await viaGroup()).toHaveLength(1);
    // Okta removes a member with a value filter path.
    const remove = await scim(oktaToken, "PATCH", `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: "remove", path: `members[value eq "${t.demo.member.user_id}"]` }] });
    expect(remove.status).toBe(204);
    const after = await scim(oktaToken, "GET", `/Groups/${gid}`);
    expect(after.status).toBe(200);
    expect(after.body.members ?? []).toEqual([]);
    expect(await viaGroup()).toHaveLength(0);
    expect((await scim(oktaToken, "GET", `/Groups?filter=${encodeURIComponent('displayName eq "engineering"')}&excludedAttributes=members`)).body.Resources).toEqual([
      expect.not.objectContaining({ members: expect.anything() }),
    ]);
  });
});

describe("Entra ID's provisioning sequence", () => {
  let bobId: string;
  let groupId: string;

  it("creates a person with enterprise extension attributes, matched by externalId", async () => {
    const lookup = await scim(entraToken, "GET", `/Users?filter=${encodeURIComponent('externalId eq "bob-ext"')}`);
    expect(lookup.body.totalResults).toBe(0);
    const created = await scim(entraToken, "POST", "/Users", {
      schemas: [USER, ENTERPRISE],
      externalId: "bob-ext",
      userName: "bob@contoso.example",
      active: true,
      displayName: "Bob Builder",
      emails: [{ primary: true, type: "work", value: "bob@contoso.example" }],
      name: { formatted: "Bob Builder", familyName: "Builder", givenName: "Bob" },
      [ENTERPRISE]: { department: "Construction", employeeNumber: "42", manager: { value: "m-1" } },
    });
    expect(created.status).toBe(201);
    bobId = String(created.body.id);
    expect(created.body[ENTERPRISE]).toMatchObject({ department: "Construction", employeeNumber: "42" });
    expect(created.body.schemas).toEqual([USER, ENTERPRISE]);
    // An extension the service does not know is kept as sent, and named among the resource's schemas.
    const custom = "urn:ietf:params:scim:schemas:extension:Contoso:2.0:User";
    const extended = await scim(entraToken, "PATCH", `/Users/${bobId}`, { schemas: [PATCH], Operations: [{ op: "add", path: `${custom}:badge`, value: "B-7" }] });
    expect(extended.status).toBe(200);
    expect([...(extended.body.schemas as string[])].sort()).toEqual([USER, ENTERPRISE, custom].sort());
    expect(extended.body[custom]).toEqual({ badge: "B-7" });
    // Each schema once, whatever its case; the core one is never an extension.
    const twice = await scim(entraToken, "PATCH", `/Users/${bobId}`, {
      schemas: [PATCH],
      Operations: [{ op: "add", path: `${custom.toLowerCase()}:floor`, value: "3" }, { op: "add", value: { [USER]: { nickName: "B" } } }],
    });
    expect(twice.status).toBe(200);
    expect(twice.body.nickName).toBe("B");
    expect([...(twice.body.schemas as string[])].map((u) => u.toLowerCase()).sort()).toEqual([USER, ENTERPRISE, custom].map((u) => u.toLowerCase()).sort());
    const again = await scim(entraToken, "GET", `/Users?filter=${encodeURIComponent('externalId eq "bob-ext"')}`);
    expect(again.body.Resources![0]!.id).toBe(bobId);
  });

  it("applies Entra ID's PATCH: capitalised ops, string booleans, paths with value filters and URN paths", async () => {
    const res = await scim(entraToken, "PATCH", `/Users/${bobId}`, {
      schemas: [PATCH],
      Operations: [
        { op: "Replace", path: 'emails[type eq "work"].value', value: "bob.builder@contoso.example" },
        { op: "Replace", path: "name.givenName", value: "Robert" },
        { op: "Add", path: `${ENTERPRISE}:department`, value: "Demolition" },
        { op: "Replace", value: { "name.familyName": "Bauer", id: "ignored" } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: bobId, name: { givenName: "Robert", familyName: "Bauer" }, emails: [{ value: "bob.builder@contoso.example" }] });
    expect(res.body[ENTERPRISE]).toMatchObject({ department: "Demolition" });
    const off = await scim(entraToken, "PATCH", `/Users/${bobId}`, { schemas: [PATCH], Operations: [{ op: "Replace", path: "active", value: "False" }] });
    expect(off.body.active).toBe(false);
    const on = await scim(entraToken, "PATCH", `/Users/${bobId}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: "True" } }] });
    expect(on.body.active).toBe(true);
  });

  it("takes the manager as Entra ID sends it, the manager's id alone, and clears it with an empty value", async () => {
    // Bob's manager, with a display name: the id alone names another manager whole, kept as the complex attribute.
    const boss = await scim(entraToken, "PATCH", `/Users/${bobId}`, {
      schemas: [PATCH],
      Operations: [{ op: "add", path: `${ENTERPRISE}:manager`, value: { value: "m-1", displayName: "Boss" } }],
    });
    expect((boss.body[ENTERPRISE] as Json).manager).toEqual({ value: "m-1", displayName: "Boss" });
    const set = await scim(entraToken, "PATCH", `/Users/${bobId}`, { schemas: [PATCH], Operations: [{ op: "Add", path: `${ENTERPRISE}:manager`, value: "m-2" }] });
    expect(set.status).toBe(200);
    expect((set.body[ENTERPRISE] as Json).manager).toEqual({ value: "m-2" });
    const pathless = await scim(entraToken, "PATCH", `/Users/${bobId}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", value: { [`${ENTERPRISE}:manager`]: "m-3" } }],
    });
    expect((pathless.body[ENTERPRISE] as Json).manager).toEqual({ value: "m-3" });
    const cleared = await scim(entraToken, "PATCH", `/Users/${bobId}`, { schemas: [PATCH], Operations: [{ op: "Replace", path: `${ENTERPRISE}:manager`, value: "" }] });
    expect(cleared.status).toBe(200);
    expect(cleared.body[ENTERPRISE]).not.toHaveProperty("manager");
    expect(cleared.body[ENTERPRISE]).toMatchObject({ department: "Demolition", employeeNumber: "42" });
    const read = await scim(entraToken, "GET", `/Users/${bobId}`);
    expect(read.body[ENTERPRISE]).not.toHaveProperty("manager");
    // The other ways to say "no manager": an empty value of the complex attribute, and of its value.
    for (const clear of [
      { op: "replace", path: `${ENTERPRISE}:manager`, value: { value: "" } },
      { op: "replace", path: `${ENTERPRISE}:manager.value`, value: "" },
    ]) {
      await scim(entraToken, "PATCH", `/Users/${bobId}`, { schemas: [PATCH], Operations: [{ op: "add", path: `${ENTERPRISE}:manager`, value: "m-4" }] });
      const again = await scim(entraToken, "PATCH", `/Users/${bobId}`, { schemas: [PATCH], Operations: [clear] });
      expect(again.status).toBe(200);
      expect(again.body[ENTERPRISE], JSON.stringify(clear)).not.toHaveProperty("manager");
    }
  });

  it("leaves the sub-attributes a path-less add or replace does not name (RFC 7644 §3.5.2.3)", async () => {
    const res = await scim(entraToken, "PATCH", `/Users/${bobId}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", value: { name: { givenName: "Rob" }, [ENTERPRISE]: { costCenter: "CC-7" } } }],
    });
    expect(res.status).toBe(200);
    expect(res.body.name).toMatchObject({ givenName: "Rob", familyName: "Bauer", formatted: "Bob Builder" });
    expect(res.body[ENTERPRISE]).toMatchObject({ costCenter: "CC-7", department: "Demolition", employeeNumber: "42" });
  });

  it("keeps removed attributes unassigned: displayName and name do not come back (Entra ID's null update)", async () => {
    const created = await scim(entraToken, "POST", "/Users", {
      schemas: [USER],
      userName: "nora@contoso.example",
      displayName: "Nora N",
      title: "Engineer",
      name: { givenName: "Nora", familyName: "N" },
      emails: [{ primary: true, type: "work", value: "nora@contoso.example" }],
    });
    expect(created.status).toBe(201);
    const id = String(created.body.id);
    const removed = await scim(entraToken, "PATCH", `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: "remove", path: "displayName" },
        { op: "Replace", path: "title", value: null },
        { op: "remove", path: "name" },
      ],
    });
    expect(removed.status).toBe(200);
    const read = await scim(entraToken, "GET", `/Users/${id}`);
    expect(read.body).not.toHaveProperty("displayName");
    expect(read.body).not.toHaveProperty("title");
    expect(read.body).not.toHaveProperty("name");
    expect(read.body.userName).toBe("nora@contoso.example");
  });

  it("refuses an e-mail value longer than an address can be, naming it, and stores nothing", async () => {
    const long = `${"x".repeat(8_000)}@contoso.example`;
    const created = await scim(entraToken, "POST", "/Users", {
      schemas: [USER],
      userName: "long@contoso.example",
      emails: [{ primary: true, value: "long@contoso.example" }, { type: "other", value: long }],
    });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ scimType: "invalidValue", detail: "emails[1].value is longer than 320 characters" });
    const added = await scim(entraToken, "PATCH", `/Users/${bobId}`, { schemas: [PATCH], Operations: [{ op: "add", path: "emails", value: [{ type: "other", value: long }] }] });
    expect(added.status).toBe(400);
    expect((await scim(entraToken, "GET", `/Users?filter=${encodeURIComponent('userName eq "long@contoso.example"')}`)).body.totalResults).toBe(0);
    expect(JSON.stringify((await scim(entraToken, "GET", `/Users/${bobId}`)).body.emails)).not.toContain("xxxx");
  });

  it("takes a value filter whose quoted value spells a JavaScript name", async () => {
    const add = await scim(entraToken, "PATCH", `/Users/${bobId}`, {
      schemas: [PATCH],
      Operations: [{ op: "add", path: "emails", value: [{ type: "other", value: "big.boss@contoso.example" }] }],
    });
    expect(add.status).toBe(200);
    const remove = await scim(entraToken, "PATCH", `/Users/${bobId}`, {
      schemas: [PATCH],
      Operations: [{ op: "remove", path: 'emails[value eq "big.boss@contoso.example"]' }],
    });
    expect(remove.status).toBe(200);
    expect((remove.body.emails as Array<{ value: string }>).map((e) => e.value)).toEqual(["bob.builder@contoso.example"]);
    // A name outside quotes is still refused, and so is one in a quoted value the PATCH library would split and walk
    // (it splits a path at its last colon, and at periods once a bracket has closed, quotes or not).
    for (const operation of [
      { op: "replace", path: "constructor.prototype", value: "x" },
      { op: "replace", value: { 'emails[value eq "a:__proto__.polluted]"]': true } },
      { op: "replace", value: { 'emails[value eq "a:constructor.prototype.polluted]"]': true } },
      { op: "replace", value: { 'urn:a":x[a.constructor.prototype.polluted eq "x]"]': true } },
    ]) {
      const proto = await scim(entraToken, "PATCH", `/Users/${bobId}`, { schemas: [PATCH], Operations: [operation] });
      expect(proto.status, JSON.stringify(operation)).toBe(400);
    }
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("adds and removes group members with path members and a list of values", async () => {
    const group = await scim(entraToken, "POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Finance", externalId: "fin" });
    groupId = String(group.body.id);
    const add = await scim(entraToken, "PATCH", `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: "Add", path: "members", value: [{ value: bobId }, { value: t.demo.member.user_id }] }],
    });
    expect(add.status).toBe(204);
    const added = await scim(entraToken, "GET", `/Groups/${groupId}`);
    expect((added.body.members as Array<{ value: string }>).map((m) => m.value).sort()).toEqual([bobId, t.demo.member.user_id].sort());
    const remove = await scim(entraToken, "PATCH", `/Groups/${groupId}`, { schemas: [PATCH], Operations: [{ op: "Remove", path: "members", value: [{ value: bobId }] }] });
    expect(remove.status).toBe(204);
    const removed = await scim(entraToken, "GET", `/Groups/${groupId}`);
    expect((removed.body.members as Array<{ value: string }>).map((m) => m.value)).toEqual([t.demo.member.user_id]);
    const byExt = await scim(entraToken, "GET", `/Groups?filter=${encodeURIComponent('externalId eq "fin"')}`);
    expect(byExt.body.totalResults).toBe(1);
    const unknown = await scim(entraToken, "PATCH", `/Groups/${groupId}`, { schemas: [PATCH], Operations: [{ op: "Add", path: "members", value: [{ value: "00000000-0000-4000-8000-000000000000" }] }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.scimType).toBe("invalidValue");
  });

  it("grants the mapped bindings; a suspended member's bindings have no effect until restored", async () => {
    const [auditor] = await t.gateway.store.db.select().from(roles).where(and(eq(roles.organizationId, orgId), eq(roles.roleName, "Auditor")));
    const mapping = { group_display_name: "Finance", role_id: auditor!.id, scope_type: "org", scope_object_id: orgId };
    const preview = await t.json<{ bindings_to_create: Array<{ user_id: string }> }>("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: orgId, integration_id: entraIntegration }), {
      query: { dry_run: "true" },
      body: { mappings: [mapping] },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.bindings_to_create.map((b) => b.user_id)).toEqual([t.demo.member.user_id]);
    expect((await t.json<{ mappings: unknown[] }>("owner", "GET", opPath("getSCIMGroupMappings", { org_id: orgId, integration_id: entraIntegration }))).body.mappings).toEqual([]);
    const applied = await t.json<{ mappings: unknown[] }>("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: orgId, integration_id: entraIntegration }), { body: { mappings: [mapping] } });
    expect(applied.body.mappings).toHaveLength(1);
    const held = await t.gateway.store.db.select().from(roleBindings).where(and(eq(roleBindings.viaGroupId, groupId), eq(roleBindings.userId, t.demo.member.user_id)));
    expect(held).toHaveLength(1);
    // The member may refuse mapping changes: owner only.
    expect((await t.call("member", "PUT", opPath("putSCIMGroupMappings", { org_id: orgId, integration_id: entraIntegration }), { body: { mappings: [] } })).status).toBe(403);
    // Group names the store folds alike (PostgreSQL's lower() turns a final sigma into σ, JavaScript's into ς):
    // one mapping or two, as the store's collation decides, but a clash is a 400 naming the mappings, never a 500.
    const sigma = await t.json<{ message?: string }>("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: orgId, integration_id: entraIntegration }), {
      body: { mappings: [{ ...mapping, group_display_name: "ΑΣ" }, { ...mapping, group_display_name: "ασ" }] },
    });
    expect([200, 400]).toContain(sigma.status);
    if (sigma.status === 400) expect(sigma.body.message).toMatch(/^body\.mappings/);
    // Removing the mapping removes the bindings.
    await t.call("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: orgId, integration_id: entraIntegration }), { body: { mappings: [] } });
    expect(await t.gateway.store.db.select().from(roleBindings).where(eq(roleBindings.viaGroupId, groupId))).toHaveLength(0);
  });

  it("refuses bad mappings with a 400 naming the field", async () => {
    const res = await t.json<{ message: string }>("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: orgId, integration_id: entraIntegration }), {
      body: { mappings: [{ group_display_name: "x", role_id: "nope", scope_type: "org", scope_object_id: orgId }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("body.mappings[0].role_id");
  });

  it("deletes a group (its bindings go) and a person (removed from the organization)", async () => {
    expect((await scim(entraToken, "DELETE", `/Groups/${groupId}`)).status).toBe(204);
    expect((await scim(entraToken, "GET", `/Groups/${groupId}`)).status).toBe(404);
    expect((await scim(entraToken, "DELETE", `/Users/${bobId}`)).status).toBe(204);
    expect((await scim(entraToken, "GET", `/Users/${bobId}`)).status).toBe(404);
    expect(await t.gateway.store.db.select().from(roleBindings).where(and(eq(roleBindings.userId, bobId), eq(roleBindings.organizationId, orgId)))).toHaveLength(0);
  });
});

describe("deleting an integration", () => {
  it("takes away the role bindings its groups granted: the person no longer holds the role", async () => {
    const idp = await newIntegration("Leaving", "okta");
    const member = t.demo.member.user_id;
    const [auditor] = await t.gateway.store.db.select().from(roles).where(and(eq(roles.organizationId, orgId), eq(roles.roleName, "Auditor")));
    const mapped = await t.call("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: orgId, integration_id: idp.id }), {
      body: { mappings: [{ group_display_name: "Auditors", role_id: auditor!.id, scope_type: "org", scope_object_id: orgId }] },
    });
    expect(mapped.status).toBe(200);
    const group = await scim(idp.token, "POST", "/Groups", { schemas: [GROUP], displayName: "Auditors", members: [{ value: member }] });
    expect(group.status).toBe(201);
    const permissions = async () =>
      (await t.json<{ permissions: string[] }>("member", "GET", opPath("getCallerPermissions", { org_id: orgId }))).body.permissions;
    expect(await permissions()).toContain("audit.read");

    expect((await t.call("owner", "DELETE", opPath("deleteSCIMIntegration", { org_id: orgId, integration_id: idp.id }))).status).toBe(204);
    expect(await permissions()).not.toContain("audit.read");
    expect(await t.gateway.store.db.select().from(roleBindings).where(eq(roleBindings.viaGroupId, String(group.body.id)))).toHaveLength(0);
  });

  // PostgreSQL only: PGlite runs one transaction at a time, so the deletion would only start once the removal ended.
  it.skipIf(!process.env.TEST_DATABASE_URL)("waits for a removal of one of its groups' people that began first, before any group goes (the two cannot wait for each other; PostgreSQL)", async () => {
    const idp = await newIntegration("Leaving too", "okta");
    const person = await scim(idp.token, "POST", "/Users", { schemas: [USER], userName: "in-two-groups@acme.example" });
    expect(person.status).toBe(201);
    const userId = String(person.body.id);
    for (const displayName of ["First", "Second"]) {
      expect((await scim(idp.token, "POST", "/Groups", { schemas: [GROUP], displayName, members: [{ value: userId }] })).status).toBe(201);
    }
    const { db } = t.gateway.store;
    const theirGroupRows = (tx: Database) => tx.select().from(scimGroupMembers).where(eq(scimGroupMembers.userId, userId));
    let begun!: () => void;
    const removalBegun = new Promise<void>((resolve) => (begun = resolve));
    // A removal's first step (the membership) taken, the rest (group memberships first) to follow.
    const removal = db.transaction(async (tx) => {
      await tx.delete(memberships).where(and(eq(memberships.organizationId, orgId), eq(memberships.userId, userId)));
      begun();
      await new Promise((resolve) => setTimeout(resolve, 400));
      // What the deletion has committed meanwhile.
      const seen = (await theirGroupRows(tx as unknown as Database)).length;
      await removePerson(tx as unknown as Database, orgId, userId);
      return seen;
    });
    await removalBegun;
    const deletion = t.call("owner", "DELETE", opPath("deleteSCIMIntegration", { org_id: orgId, integration_id: idp.id }));
    expect(await removal).toBe(2);
    expect((await deletion).status).toBe(204);
    expect(await theirGroupRows(db)).toEqual([]);
    expect(await db.select().from(scimIntegrations).where(eq(scimIntegrations.id, idp.id))).toEqual([]);
  });
});

describe("filters, paging and projections", () => {
  beforeAll(async () => {
    for (let i = 0; i < 12; i++) {
      const res = await scim(oktaToken, "POST", "/Users", { schemas: [USER], userName: `pager${String(i).padStart(2, "0")}@paging.example`, name: { givenName: `P${i}` } });
      expect(res.status).toBe(201);
    }
  });

  it("compares meta dates as moments, however the date-time is written (RFC 7644 §3.4.2.2)", async () => {
    const found = await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent('userName eq "pager03@paging.example"')}`);
    const user = found.body.Resources![0]!;
    const modified = (user.meta as { lastModified: string }).lastModified;
    const moment = new Date(modified);
    const ids = async (filter: string) =>
      (await scim(oktaToken, "GET", `/Users?count=200&filter=${encodeURIComponent(filter)}`)).body.Resources?.map((r) => r.id) ?? [];
    // The same moment two hours east, and the second it falls in without its milliseconds.
    const east = new Date(moment.getTime() + 2 * 3_600_000).toISOString().replace(/\.(\d{3})Z$/, ".$1+02:00");
    const second = new Date(Math.floor(moment.getTime() / 1000) * 1000).toISOString().replace(".000Z", "Z");
    expect(await ids(`meta.lastModified eq "${modified}"`)).toContain(user.id);
    expect(await ids(`meta.lastModified eq "${east}"`)).toContain(user.id);
    expect(await ids(`meta.lastModified ge "${second}"`)).toContain(user.id);
    expect(await ids(`meta.lastModified gt "${modified}" and userName eq "pager03@paging.example"`)).toEqual([]);
    expect(await ids(`meta.created le "${new Date(Date.now() + 60_000).toISOString()}" and userName eq "pager03@paging.example"`)).toEqual([user.id]);
    for (const filter of ['meta.lastModified gt "yesterday"', 'meta.created co "2026"', 'active eq "banana"']) {
      const res = await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent(filter)}`);
      expect(res.status, filter).toBe(400);
      expect(res.body.scimType, filter).toBe("invalidFilter");
    }
  });

  it("pages 1-based with totalResults and itemsPerPage = the number returned", async () => {
    const filter = encodeURIComponent('userName sw "pager"');
    const first = await scim(oktaToken, "GET", `/Users?filter=${filter}&startIndex=1&count=5`);
    expect(first.body).toMatchObject({ totalResults: 12, itemsPerPage: 5, startIndex: 1 });
    const last = await scim(oktaToken, "GET", `/Users?filter=${filter}&startIndex=11&count=5`);
    expect(last.body).toMatchObject({ totalResults: 12, itemsPerPage: 2, startIndex: 11 });
    const none = await scim(oktaToken, "GET", `/Users?filter=${filter}&count=0`);
    expect(none.body).toMatchObject({ totalResults: 12, itemsPerPage: 0 });
  });

  it("supports and/or, pr, co and emails.value", async () => {
    const q = async (f: string) => (await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent(f)}`)).body;
    expect((await q('userName co "pager0" and name.givenName eq "P3"')).totalResults).toBe(1);
    expect((await q('userName eq "pager01@paging.example" or userName eq "pager02@paging.example"')).totalResults).toBe(2);
    expect((await q("externalId pr")).totalResults).toBeGreaterThanOrEqual(1);
    expect((await q('emails.value eq "alice.smith@example.com"')).totalResults).toBe(1);
    expect((await q(`id eq "${t.demo.owner.user_id}"`)).totalResults).toBe(1);
  });

  it("finds a person by any of their e-mail values, case-insensitively, and follows replaced values", async () => {
    const created = await scim(oktaToken, "POST", "/Users", {
      schemas: [USER],
      userName: "two.mails@paging.example",
      emails: [
        { value: "two.mails@paging.example", type: "work", primary: true },
        { value: "Second.Box@Home.example", type: "home" },
      ],
    });
    expect(created.status).toBe(201);
    const q = async (f: string) => (await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent(f)}`)).body;
    expect((await q('emails.value eq "second.box@home.example"')).Resources?.map((r) => r.id)).toEqual([created.body.id]);
    expect((await q('emails[type eq "home" and value eq "SECOND.BOX@home.example"]')).totalResults).toBe(1);
    // One entry must match the whole value filter: the home address is not the work one.
    expect((await q('emails[type eq "work" and value eq "second.box@home.example"]')).totalResults).toBe(0);
    expect((await q('userName sw "two.mails" and emails.type eq "home"')).totalResults).toBe(1);
    expect((await q('userName sw "two.mails" and emails[primary eq true and value co "home"]')).totalResults).toBe(0);
    const patched = await scim(oktaToken, "PATCH", `/Users/${String(created.body.id)}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", path: 'emails[type eq "home"].value', value: "moved@home.example" }],
    });
    expect(patched.status).toBe(200);
    expect((await q('emails.value eq "second.box@home.example"')).totalResults).toBe(0);
    expect((await q('emails.value eq "moved@home.example"')).totalResults).toBe(1);
  });

  it("pages the people one e-mail lookup finds: all of them counted, in creation order, none of another organization", async () => {
    const shared = "family.box@paging.example";
    const ids: string[] = [];
    for (const name of ["first.sharer", "second.sharer", "third.sharer"]) {
      const created = await scim(oktaToken, "POST", "/Users", {
        schemas: [USER],
        userName: `${name}@paging.example`,
        emails: [
          { value: `${name}@paging.example`, type: "work", primary: true },
          { value: shared, type: "home" },
        ],
      });
      expect(created.status).toBe(201);
      ids.push(String(created.body.id));
    }
    const page = async (startIndex: number, count: number) =>
      (await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent(`emails.value eq "${shared.toUpperCase()}"`)}&startIndex=${startIndex}&count=${count}`)).body;
    expect(await page(1, 2)).toMatchObject({ totalResults: 3, itemsPerPage: 2, startIndex: 1 });
    expect((await page(1, 2)).Resources?.map((r) => r.id)).toEqual(ids.slice(0, 2));
    expect((await page(3, 2)).Resources?.map((r) => r.id)).toEqual(ids.slice(2));
    expect(await page(4, 2)).toMatchObject({ totalResults: 3, itemsPerPage: 0, Resources: [] });
    expect(await page(1, 0)).toMatchObject({ totalResults: 3, itemsPerPage: 0 });
    // Another organization's identity provider finds none of them.
    const globex = await t.outsiderOrganizationId();
    const integration = await t.json<{ api_key_info: { api_key: string } }>("outsider", "POST", opPath("createSCIMIntegration", { org_id: globex }), {
      body: { name: "Globex Okta", identity_provider: "okta", token: { alias: "globex-okta", expires_at: future() } },
    });
    expect(integration.status).toBe(200);
    const elsewhere = await scim(integration.body.api_key_info.api_key, "GET", `/Users?filter=${encodeURIComponent(`emails.value eq "${shared}"`)}`);
    expect(elsewhere.body).toMatchObject({ totalResults: 0, Resources: [] });
  });

  it("answers the lookups an identity provider makes as reads: the store's caches of reads are kept", async () => {
    const { listGroups, listPeople } = await import("../../store/queries/scim-service");
    const { db, changes } = t.gateway.store;
    // Other writes' change notices (PostgreSQL) arrive after their commits: wait for a quiet store.
    for (let last = -1; last !== changes.version; ) {
      last = changes.version;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const before = { version: changes.version, tokens: changes.scimTokensVersion };
    const all = { offset: 0, limit: 200 };
    const found = await listPeople(db, orgId, 'userName eq "FIRST.SHARER@paging.example"', all);
    expect(found.total).toBe(1);
    expect((await listPeople(db, orgId, 'emails.value eq "family.box@paging.example"', all)).total).toBe(3);
    await listPeople(db, orgId, 'externalId eq "nobody"', all);
    await listPeople(db, orgId, 'userName sw "first" or name.familyName eq "x"', all);
    await listPeople(db, orgId, undefined, { offset: 1, limit: 2 });
    await listGroups(db, oktaIntegration, 'displayName eq "nobody"', all);
    expect({ version: changes.version, tokens: changes.scimTokensVersion }).toEqual(before);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)("gives a name to one person when an invitation, a SCIM create and a SCIM rename ask for it at once (PostgreSQL)", async () => {
    const { drizzle } = await import("drizzle-orm/node-postgres");
    const { lockUserName } = await import("../../store/queries/scim-service");
    const renamer = await scim(oktaToken, "POST", "/Users", { schemas: [USER], userName: "renamer@lock.example", emails: [{ value: "renamer@lock.example", primary: true }] });
    expect(renamer.status).toBe(201);
    const contested = "Contested@lock.example";
    // Another transaction holds the name's lock: each of the three must wait for it, then check.
    const pool = (t.gateway.store.db as unknown as { $client: import("pg").Pool }).$client;
    const holder = await pool.connect();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const holding = drizzle(holder).transaction(async (tx) => {
      await lockUserName(tx as never, orgId, contested);
      await released;
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const settled: string[] = [];
      const asks = [
        t.call("owner", "POST", opPath("inviteOrganizationPerson", { org_id: orgId }), { body: { email: contested.toLowerCase() } }).then((r) => r.status),
        scim(oktaToken, "POST", "/Users", { schemas: [USER], userName: contested, emails: [{ value: "someone.else@lock.example", primary: true }] }).then((r) => r.status),
        scim(oktaToken, "PUT", `/Users/${String(renamer.body.id)}`, { schemas: [USER], userName: contested, emails: [{ value: "renamer@lock.example", primary: true }] }).then((r) => r.status),
      ].map((ask, i) => ask.finally(() => settled.push(String(i))));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(settled).toEqual([]);
      release();
      await holding;
      const statuses = await Promise.all(asks);
      expect(statuses.filter((s) => s === 200 || s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(2);
      const found = await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent(`userName eq "${contested}"`)}`);
      expect(found.body.totalResults).toBe(1);
    } finally {
      release();
      await holding.catch(() => undefined);
      holder.release();
    }
  });

  it("lists everyone in creation order when no filter is given, the same people across pages", async () => {
    const all = await scim(oktaToken, "GET", "/Users?count=1000");
    const total = Number(all.body.totalResults);
    expect(all.body.Resources).toHaveLength(total);
    const paged: unknown[] = [];
    for (let start = 1; start <= total; start += 4) paged.push(...(await scim(oktaToken, "GET", `/Users?startIndex=${start}&count=4`)).body.Resources!.map((r) => r.id));
    expect(paged).toEqual(all.body.Resources!.map((r) => r.id));
    const created = all.body.Resources!.map((r) => String((r.meta as { created: string }).created));
    expect([...created].sort()).toEqual(created);
  });

  it("keeps only the attributes asked for, or drops the excluded ones", async () => {
    const only = await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent('userName eq "pager00@paging.example"')}&attributes=userName`);
    expect(Object.keys(only.body.Resources![0]!).sort()).toEqual(["id", "schemas", "userName"]);
    const without = await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent('userName eq "pager00@paging.example"')}&excludedAttributes=emails,name`);
    expect(without.body.Resources![0]).not.toHaveProperty("emails");
    expect(without.body.Resources![0]).toHaveProperty("userName");
  });

  it("projects the enterprise extension by its URN, and sub-attributes in every entry of a list", async () => {
    const made = await scim(oktaToken, "POST", "/Users", {
      schemas: [USER, ENTERPRISE],
      userName: "projected@paging.example",
      emails: [{ value: "projected@paging.example", type: "work", primary: true }],
      [ENTERPRISE]: { department: "Research", manager: { value: "m-9" } },
    });
    expect(made.status).toBe(201);
    const view = async (query: string) =>
      (await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent('userName eq "projected@paging.example"')}&${query}`)).body.Resources![0]!;
    const extension = await view(`attributes=${ENTERPRISE}`);
    expect(Object.keys(extension).sort()).toEqual(["id", "schemas", ENTERPRISE].sort());
    expect(extension[ENTERPRISE]).toEqual({ department: "Research", manager: { value: "m-9" } });
    const department = await view(`attributes=${ENTERPRISE}:department,userName`);
    expect(department[ENTERPRISE]).toEqual({ department: "Research" });
    expect(department.userName).toBe("projected@paging.example");
    expect((await view(`excludedAttributes=${ENTERPRISE}:manager`))[ENTERPRISE]).toEqual({ department: "Research" });
    expect(await view(`excludedAttributes=${ENTERPRISE}`)).not.toHaveProperty(ENTERPRISE);
    expect((await view("excludedAttributes=emails.type")).emails).toEqual([{ value: "projected@paging.example", primary: true }]);
    expect((await view("attributes=emails.value")).emails).toEqual([{ value: "projected@paging.example" }]);
  });
});

describe("names, PATCH and paging as RFC 7643 and 7644 ask", () => {
  let n = 0;
  /** A new person of the organization, to change freely. */
  async function person(): Promise<string> {
    const res = await scim(oktaToken, "POST", "/Users", { schemas: [USER], userName: `rfc${n++}@rfc.example` });
    expect(res.status).toBe(201);
    return String(res.body.id);
  }
  const patch = (type: "Users" | "Groups", id: string, ...ops: unknown[]) => scim(oktaToken, "PATCH", `/${type}/${id}`, { schemas: [PATCH], Operations: ops });
  const memberIds = (res: { body: Json }) => ((res.body.members ?? []) as Array<{ value: string }>).map((m) => m.value).sort();
  /** A group PATCH (answered 204: no attributes asked), then the group as a GET reads it. */
  const patchedGroup = async (id: string, ...ops: unknown[]) => {
    const res = await patch("Groups", id, ...ops);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    const read = await scim(oktaToken, "GET", `/Groups/${id}`);
    expect(read.status).toBe(200);
    return read;
  };

  it("reads attribute names case-insensitively in a POST body", async () => {
    const res = await scim(oktaToken, "POST", "/Users", {
      schemas: [USER],
      UserName: "Casey.Case@rfc.example",
      DisplayName: "Casey Case",
      NAME: { GivenName: "Casey" },
      Emails: [{ Value: "casey.case@rfc.example", Primary: "True" }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ userName: "Casey.Case@rfc.example", displayName: "Casey Case", name: { givenName: "Casey" }, emails: [{ value: "casey.case@rfc.example", primary: true }] });
    expect(res.body).not.toHaveProperty("UserName");
  });

  it("keeps every multi-valued attribute's primary as a boolean, from Entra ID's strings, and a null primary as unassigned", async () => {
    const multiValued = ["emails", "phoneNumbers", "ims", "photos", "addresses", "entitlements", "roles", "x509Certificates"];
    const entry = (attribute: string, primary: unknown) => ({ value: attribute === "emails" ? "prim@rfc.example" : `${attribute}-1`, type: "work", primary });
    const created = await scim(oktaToken, "POST", "/Users", {
      schemas: [USER],
      userName: "prim@rfc.example",
      ...Object.fromEntries(multiValued.map((a, i) => [a, [entry(a, i % 2 ? "True" : "TRUE"), { ...entry(a, "false"), value: `${a}-2` }]])),
    });
    expect(created.status).toBe(201);
    const id = String(created.body.id);
    for (const body of [created.body, (await scim(oktaToken, "GET", `/Users/${id}`)).body]) {
      for (const a of multiValued) expect((body[a] as Array<{ primary: unknown }>).map((e) => e.primary), a).toEqual([true, false]);
    }
    const patched = await patch(
      "Users",
      id,
      ...multiValued.filter((a) => a !== "emails").map((a) => ({ op: "add", path: a, value: [{ value: `${a}-3`, primary: "False" }, { value: `${a}-4`, primary: null }] })),
      { op: "replace", path: 'roles[value eq "roles-1"].primary', value: "false" },
    );
    expect(patched.status).toBe(200);
    for (const body of [patched.body, (await scim(oktaToken, "GET", `/Users/${id}`)).body]) {
      expect((body.roles as Array<{ primary?: unknown }>).map((e) => e.primary)).toEqual([false, false, false, undefined]);
      expect(body.roles as unknown[]).toContainEqual({ value: "roles-4" });
      for (const a of multiValued.filter((a) => a !== "emails" && a !== "roles")) {
        expect((body[a] as Array<{ primary?: unknown }>).map((e) => e.primary), a).toEqual([true, false, false, undefined]);
      }
    }
    // What is neither a boolean nor one spelled as a string is refused, naming it.
    const bad = await patch("Users", id, { op: "add", path: "phoneNumbers", value: [{ value: "+1 555 0199", primary: "yes" }] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ scimType: "invalidValue", detail: "phoneNumbers[4].primary must be a boolean" });

    // A primary stored before this rule that no boolean reads from goes with the next PATCH, which it does not block.
    const { db } = t.gateway.store;
    const [row] = await db.select({ attributes: memberships.scimAttributes }).from(memberships).where(eq(memberships.userId, id));
    const attributes = row!.attributes as Record<string, Array<Record<string, unknown>>>;
    attributes.phoneNumbers![0]!.primary = 1;
    await db.update(memberships).set({ scimAttributes: attributes }).where(eq(memberships.userId, id));
    const off = await patch("Users", id, { op: "replace", path: "active", value: false });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    expect((off.body.phoneNumbers as Array<{ primary?: unknown }>).map((e) => e.primary)).toEqual([undefined, false, false, undefined]);
  });

  it("updates the primary role through Entra ID's paths, which compare the boolean primary as a string", async () => {
    // Entra ID's SingleAppRoleAssignment mapping targets roles[primary eq "True"].value, .display and .type.
    const created = await scim(oktaToken, "POST", "/Users", {
      schemas: [USER],
      userName: "role.holder@rfc.example",
      roles: [{ primary: true, display: "Old display", value: "old-value", type: "WindowsAzureActiveDirectoryRole" }],
      emails: [{ value: "role.holder@rfc.example", type: "work", primary: "True" }, { value: "home@rfc.example", type: "home" }],
    });
    expect(created.status).toBe(201);
    const id = String(created.body.id);
    const res = await patch(
      "Users",
      id,
      { op: "replace", path: 'roles[primary eq "True"].display', value: "New display" },
      { op: "replace", path: 'roles[primary eq "True"].value', value: "new-value" },
      { op: "replace", path: 'roles[primary eq "True"].type', value: "AppRole" },
      { op: "replace", path: 'emails[primary eq "true"].value', value: "role.holder+renamed@rfc.example" },
    );
    expect(res.status).toBe(200);
    for (const body of [res.body, (await scim(oktaToken, "GET", `/Users/${id}`)).body]) {
      expect(body.roles).toEqual([{ primary: true, display: "New display", value: "new-value", type: "AppRole" }]);
      expect(body.emails).toEqual([{ value: "role.holder+renamed@rfc.example", type: "work", primary: true }, { value: "home@rfc.example", type: "home" }]);
    }
  });

  it("makes the other entries not primary when a PATCH makes one primary (RFC 7644 §3.5.2)", async () => {
    const created = await scim(oktaToken, "POST", "/Users", {
      schemas: [USER],
      userName: "one.primary@rfc.example",
      emails: [{ value: "one.primary@rfc.example", type: "work", primary: true }],
      phoneNumbers: [{ value: "+1 555 0100", type: "work", primary: true }, { value: "+1 555 0101", type: "mobile" }],
    });
    expect(created.status).toBe(201);
    const id = String(created.body.id);
    const res = await patch(
      "Users",
      id,
      { op: "add", path: "emails", value: [{ value: "other@rfc.example", type: "home", primary: "True" }] },
      { op: "replace", path: 'phoneNumbers[type eq "mobile"].primary', value: true },
    );
    expect(res.status).toBe(200);
    for (const body of [res.body, (await scim(oktaToken, "GET", `/Users/${id}`)).body]) {
      expect(body.emails).toEqual([
        { value: "one.primary@rfc.example", type: "work", primary: false },
        { value: "other@rfc.example", type: "home", primary: true },
      ]);
      expect(body.phoneNumbers).toEqual([
        { value: "+1 555 0100", type: "work", primary: false },
        { value: "+1 555 0101", type: "mobile", primary: true },
      ]);
    }
    // A change that makes nothing primary leaves the primary one as it is.
    const other = await patch("Users", id, { op: "replace", path: 'phoneNumbers[type eq "work"].value', value: "+1 555 0102" });
    expect((other.body.phoneNumbers as Array<{ primary?: boolean }>).map((p) => p.primary)).toEqual([false, true]);
  });

  it("reads a null value of an add or replace as unassigned (RFC 7643 §2.5): the attribute goes", async () => {
    const created = await scim(oktaToken, "POST", "/Users", {
      schemas: [USER],
      userName: "null.values@rfc.example",
      name: { givenName: "Nell", familyName: "Null" },
      title: "Lead",
      nickName: "Nelly",
      emails: [{ value: "null.values@rfc.example", type: "work", primary: true }],
      phoneNumbers: [{ value: "+1 555 0100", type: "work" }],
    });
    expect(created.status).toBe(201);
    const id = String(created.body.id);
    const res = await patch(
      "Users",
      id,
      { op: "replace", path: "name", value: null },
      { op: "add", path: 'phoneNumbers[type eq "work"].value', value: null },
      { op: "replace", value: { title: null, "name.givenName": null } },
      { op: "replace", value: { nickName: null } },
    );
    expect(res.status).toBe(200);
    for (const body of [res.body, (await scim(oktaToken, "GET", `/Users/${id}`)).body]) {
      expect(body).not.toHaveProperty("name");
      expect(body).not.toHaveProperty("title");
      expect(body).not.toHaveProperty("nickName");
      expect(body.phoneNumbers).toEqual([{ type: "work" }]);
      expect(body.emails).toEqual([{ value: "null.values@rfc.example", type: "work", primary: true }]);
    }
  });

  it("reads attribute names case-insensitively in PATCH paths and path-less values", async () => {
    const id = await person();
    const off = await patch("Users", id, { op: "replace", path: "Active", value: false });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    const on = await patch("Users", id, { op: "replace", value: { Active: true, "Name.GivenName": "Rae", Title: "Lead" } });
    expect(on.body).toMatchObject({ active: true, name: { givenName: "Rae" }, title: "Lead" });
    const more = await patch(
      "Users",
      id,
      { op: "add", path: `${USER}:DisplayName`, value: "Rae Lead" },
      { op: "add", path: `${ENTERPRISE}:Department`, value: "Sales" },
      { op: "replace", path: 'EMAILS[type eq "work"].Value', value: "rae@rfc.example" },
    );
    expect(more.status).toBe(200);
    expect(more.body).toMatchObject({ displayName: "Rae Lead", [ENTERPRISE]: { department: "Sales" }, emails: [{ value: "rae@rfc.example" }] });
    expect(Object.keys(more.body).filter((k) => /^(title|displayName|emails)$/i.test(k)).sort()).toEqual(["displayName", "emails", "title"]);
  });

  it("applies a path-less value's key with a value filter as that path, and refuses a key that is no path", async () => {
    const id = await person();
    const res = await patch("Users", id, { op: "replace", value: { 'emails[type eq "work"].value': "new@rfc.example", "name.givenName": "B" } });
    expect(res.status).toBe(200);
    const read = await scim(oktaToken, "GET", `/Users/${id}`);
    expect(read.body.emails).toEqual([{ value: "new@rfc.example", type: "work", primary: true }]);
    expect(read.body.name).toEqual({ givenName: "B" });
    expect(Object.keys(read.body).filter((k) => k.includes("["))).toEqual([]);
    for (const key of ["not a path", 'emails[type zz "work"].value', "name..givenName"]) {
      const bad = await patch("Users", id, { op: "add", value: { [key]: "x" } });
      expect(bad.status, key).toBe(400);
      expect(bad.body.scimType, key).toBe("invalidPath");
    }
    expect((await scim(oktaToken, "GET", `/Users/${id}`)).body).toEqual(read.body);
  });

  it("takes the extension's URN alone as a path: its value sets the extension's attributes, and remove removes the extension", async () => {
    const id = await person();
    const set = await patch("Users", id, { op: "replace", path: ENTERPRISE, value: { department: "X" } }, { op: "add", path: ENTERPRISE.toLowerCase(), value: { CostCenter: "C-1" } });
    expect(set.status).toBe(200);
    const read = await scim(oktaToken, "GET", `/Users/${id}`);
    expect(read.body[ENTERPRISE]).toEqual({ department: "X", costCenter: "C-1" });
    expect(read.body.schemas).toEqual([USER, ENTERPRISE]);
    expect(Object.keys(read.body).filter((k) => k.startsWith("urn:"))).toEqual([ENTERPRISE]);
    const notObject = await patch("Users", id, { op: "replace", path: ENTERPRISE, value: "X" });
    expect(notObject.status).toBe(400);
    expect(notObject.body.scimType).toBe("invalidValue");
    const removed = await patch("Users", id, { op: "remove", path: ENTERPRISE });
    expect(removed.status).toBe(200);
    const after = await scim(oktaToken, "GET", `/Users/${id}`);
    expect(after.body).not.toHaveProperty(ENTERPRISE);
    expect(after.body.schemas).toEqual([USER]);
    // A null value leaves it unassigned too (RFC 7643 §2.5).
    await patch("Users", id, { op: "add", path: ENTERPRISE, value: { department: "Y" } });
    expect((await patch("Users", id, { op: "replace", path: ENTERPRISE, value: null })).body).not.toHaveProperty(ENTERPRISE);
  });

  it("removes the manager Entra ID names by its id (a value filter, or a value), in the PATCH that suspends the person too", async () => {
    const id = await person();
    const managerOf = async () => ((await scim(oktaToken, "GET", `/Users/${id}`)).body[ENTERPRISE] as Json | undefined)?.manager;
    expect((await patch("Users", id, { op: "add", path: `${ENTERPRISE}:manager`, value: "m-5" })).status).toBe(200);
    // Naming another manager changes nothing.
    expect((await patch("Users", id, { op: "remove", path: `${ENTERPRISE}:manager[value eq "m-other"]` })).status).toBe(200);
    expect(await managerOf()).toEqual({ value: "m-5" });
    const leaving = await patch("Users", id, { op: "Replace", path: "active", value: "False" }, { op: "Remove", path: `${ENTERPRISE}:manager[value eq "m-5"]` });
    expect(leaving.status).toBe(200);
    expect(leaving.body.active).toBe(false);
    expect(await managerOf()).toBeUndefined();
    for (const value of [[{ value: "m-6" }], { value: "m-6" }, "m-6"]) {
      expect((await patch("Users", id, { op: "add", path: `${ENTERPRISE}:manager`, value: "m-6" })).status).toBe(200);
      const removed = await patch("Users", id, { op: "Remove", path: `${ENTERPRISE}:manager`, value });
      expect(removed.status, JSON.stringify(value)).toBe(200);
      expect(await managerOf(), JSON.stringify(value)).toBeUndefined();
    }
    // The id compares in any case (caseExact false); without the extension's URN the manager's path is the same one.
    for (const remove of [
      { op: "remove", path: `${ENTERPRISE}:manager[value eq "M-7"]` },
      { op: "remove", path: 'manager[value eq "m-7"]' },
      { op: "remove", path: "manager", value: [{ value: "m-7" }] },
    ]) {
      expect((await patch("Users", id, { op: "add", path: `${ENTERPRISE}:manager`, value: "m-7" })).status).toBe(200);
      expect((await patch("Users", id, remove)).status, JSON.stringify(remove)).toBe(200);
      expect(await managerOf(), JSON.stringify(remove)).toBeUndefined();
    }
    // An empty value names no one: whatever manager there is goes, as with no value.
    for (const value of [null, "", { value: "" }, { value: null }, []]) {
      expect((await patch("Users", id, { op: "add", path: `${ENTERPRISE}:manager`, value: "m-8" })).status).toBe(200);
      const removed = await patch("Users", id, { op: "Replace", path: "active", value: "True" }, { op: "remove", path: `${ENTERPRISE}:manager`, value });
      expect(removed.status, JSON.stringify(value)).toBe(200);
      expect(await managerOf(), JSON.stringify(value)).toBeUndefined();
    }
    // Any other filter on the manager is refused as one.
    const other = await patch("Users", id, { op: "remove", path: `${ENTERPRISE}:manager[displayName eq "Boss"]` });
    expect([other.status, other.body.scimType]).toEqual([400, "invalidFilter"]);
  });

  it("takes an e-mail's value unassigned or changed in a PUT or PATCH (Entra ID's mandatory update tests): the entry goes, or keeps what was sent", async () => {
    const id = await person();
    const emailsOf = async () => (await scim(oktaToken, "GET", `/Users/${id}`)).body.emails;
    expect((await patch("Users", id, { op: "replace", path: "emails", value: [{ type: "work", value: "first@rfc.example", primary: true }] })).status).toBe(200);
    const changed = await patch("Users", id, { op: "replace", path: 'emails[type eq "work"].value', value: "upd-1a2b3c4d" });
    expect(changed.status).toBe(200);
    expect(await emailsOf()).toEqual([{ type: "work", value: "upd-1a2b3c4d", primary: true }]);
    // With none of its own, a person is shown with the account's address.
    const account = [{ value: String((await scim(oktaToken, "GET", `/Users/${id}`)).body.userName), type: "work", primary: true }];
    expect((await patch("Users", id, { op: "replace", path: 'emails[type eq "work"].value', value: null })).status).toBe(200);
    expect(await emailsOf()).toEqual(account);
    expect((await patch("Users", id, { op: "replace", path: "emails", value: [{ type: "work", value: "again@rfc.example" }] })).status).toBe(200);
    expect((await patch("Users", id, { op: "Remove", path: 'emails[type eq "work"].value' })).status).toBe(200);
    expect(await emailsOf()).toEqual(account);
    const userName = String((await scim(oktaToken, "GET", `/Users/${id}`)).body.userName);
    const put = await scim(oktaToken, "PUT", `/Users/${id}`, { schemas: [USER], userName, emails: [{ type: "work", value: null }, { type: "home", value: "not-an-address" }] });
    expect(put.status).toBe(200);
    expect(put.body.emails).toEqual([{ type: "home", value: "not-an-address" }]);
    // The account still answers to the address it was made with; a value of the wrong kind is still refused.
    expect((await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent(`userName eq "${String((await scim(oktaToken, "GET", `/Users/${id}`)).body.userName)}"`)}`)).body.totalResults).toBe(1);
    expect((await patch("Users", id, { op: "add", path: "emails", value: [{ type: "work", value: 42 }] })).body.scimType).toBe("invalidValue");
  });

  it("takes an identity provider's own extension's URN alone, and the core schema's, as paths the same way: no junk attribute under a part of the URN", async () => {
    const OWN = "urn:ietf:params:scim:schemas:extension:acme:2.0:User";
    const id = await person();
    expect((await patch("Users", id, { op: "add", path: OWN, value: { team: "Blue", site: "Lyon" } })).status).toBe(200);
    expect((await patch("Users", id, { op: "replace", path: OWN, value: { team: "Red" } }, { op: "replace", value: { [OWN]: { floor: "3" } } })).status).toBe(200);
    expect((await patch("Users", id, { op: "replace", path: USER, value: { displayName: "By the core URN" } })).status).toBe(200);
    const read = await scim(oktaToken, "GET", `/Users/${id}`);
    expect(read.body[OWN]).toEqual({ team: "Red", site: "Lyon", floor: "3" });
    expect(read.body.displayName).toBe("By the core URN");
    expect(Object.keys(read.body).filter((k) => k.startsWith("urn:") && k !== OWN)).toEqual([]);
    expect((await patch("Users", id, { op: "remove", path: OWN })).status).toBe(200);
    expect((await scim(oktaToken, "GET", `/Users/${id}`)).body).not.toHaveProperty(OWN);
    expect((await patch("Users", id, { op: "add", path: OWN, value: { team: "Green" } })).status).toBe(200);
    expect((await patch("Users", id, { op: "replace", value: { [OWN]: null } })).body).not.toHaveProperty(OWN);
    expect((await patch("Users", id, { op: "replace", path: OWN, value: "not an object" })).body.scimType).toBe("invalidValue");
    // The core schema's URN names its attributes only with an object of them.
    for (const value of [null, "x"]) {
      expect((await patch("Users", id, { op: "replace", path: USER, value })).body.scimType).toBe("invalidValue");
      expect((await patch("Users", id, { op: "replace", value: { [USER]: value } })).body.scimType).toBe("invalidValue");
    }
    // An attribute of the extension that happens to be named as a resource is an attribute, not the extension.
    expect((await patch("Users", id, { op: "add", path: `${OWN}:user`, value: "an attribute" })).status).toBe(200);
    expect((await scim(oktaToken, "GET", `/Users/${id}`)).body[OWN]).toEqual({ user: "an attribute" });
    expect(Object.keys((await scim(oktaToken, "GET", `/Users/${id}`)).body).filter((k) => k.startsWith("urn:") && k !== OWN)).toEqual([]);
  });

  it("compares a PATCH value filter's strings in any case (RFC 7644 §3.4.2.2: caseExact false), and keeps them as stored", async () => {
    const id = await person();
    const res = await patch("Users", id, { op: "replace", path: 'emails[type eq "Work"].value', value: "new.case@rfc.example" });
    expect(res.status).toBe(200);
    expect((await scim(oktaToken, "GET", `/Users/${id}`)).body.emails).toEqual([{ value: "new.case@rfc.example", type: "work", primary: true }]);
    // Two spellings stored: a filter in a third matches both; one that matches none still adds (RFC 7644 §3.5.2.1).
    await patch("Users", id, { op: "add", path: "phoneNumbers", value: [{ value: "1", type: "Mobile" }, { value: "2", type: "MOBILE" }, { value: "3", type: "home" }] });
    const both = await patch("Users", id, { op: "replace", path: 'phoneNumbers[type eq "mobile" and value ne "X"].display', value: "m" }, { op: "remove", path: 'phoneNumbers[type eq "HOME"]' });
    expect(both.status).toBe(200);
    expect(both.body.phoneNumbers).toEqual([
      { value: "1", type: "Mobile", display: "m" },
      { value: "2", type: "MOBILE", display: "m" },
    ]);
    const added = await patch("Users", id, { op: "add", path: 'phoneNumbers[type eq "Fax"].value', value: "4" });
    expect((added.body.phoneNumbers as unknown[]).at(-1)).toEqual({ type: "Fax", value: "4" });
    // A group member's id is caseExact: a filter in another case matches nobody.
    const group = await scim(oktaToken, "POST", "/Groups", { schemas: [GROUP], displayName: "Case exact", members: [{ value: id }] });
    const none = await patchedGroup(String(group.body.id), { op: "remove", path: `members[value eq "${id.toUpperCase()}"]` });
    expect(memberIds(none)).toEqual([id]);
  });

  it("treats a replace of an attribute the person lacks as an add (RFC 7644 §3.5.2.3)", async () => {
    const id = await person();
    const res = await patch("Users", id, { op: "replace", path: 'phoneNumbers[type eq "work"].value', value: "+1 555 0100" });
    expect(res.status).toBe(200);
    expect(res.body.phoneNumbers).toEqual([{ type: "work", value: "+1 555 0100" }]);
    expect((await scim(oktaToken, "GET", `/Users/${id}`)).body.phoneNumbers).toEqual([{ type: "work", value: "+1 555 0100" }]);
  });

  it("answers noTarget for a value filter that matches no member, and invalidPath for a malformed path", async () => {
    const group = await scim(oktaToken, "POST", "/Groups", { schemas: [GROUP], displayName: "No targets" });
    const none = await patch("Groups", String(group.body.id), { op: "replace", path: 'members[value eq "nobody"]', value: { display: "x" } });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ schemas: [ERROR], scimType: "noTarget" });
    const id = await person();
    for (const path of ['emails[type eq "work"', 'emails[type zz "work"].value', "name..givenName"]) {
      const bad = await patch("Users", id, { op: "replace", path, value: "x" });
      expect(bad.status, path).toBe(400);
      expect(bad.body.scimType, path).toBe("invalidPath");
    }
  });

  it("removes members given as one object, and through the fully qualified path", async () => {
    const [a, b, c] = [await person(), await person(), await person()];
    const group = await scim(oktaToken, "POST", "/Groups", { schemas: [GROUP], displayName: "Removals", members: [{ value: a }, { value: b }, { value: c }] });
    expect(group.status).toBe(201);
    const gid = String(group.body.id);
    expect(memberIds(await patchedGroup(gid, { op: "remove", path: "members", value: { value: a } }))).toEqual([b, c].sort());
    expect(memberIds(await patchedGroup(gid, { op: "remove", path: `${GROUP}:members`, value: { value: b } }))).toEqual([c]);
    expect(memberIds(await patchedGroup(gid, { op: "remove", path: `${GROUP}:members`, value: [{ value: c }] }))).toEqual([]);
  });

  it("answers a group PATCH 204 unless it names attributes or excludedAttributes, then 200 with the group as written, projected (RFC 7644 §3.5.2)", async () => {
    const [a, b] = [await person(), await person()];
    const group = await scim(oktaToken, "POST", "/Groups", { schemas: [GROUP], displayName: "Answers", members: [{ value: a }] });
    expect(group.status).toBe(201);
    const gid = String(group.body.id);
    const path = (query = "") => `${root}/scim/v2/Groups/${gid}${query}`;
    const send = (query: string, ...ops: unknown[]) =>
      fetch(path(query), { method: "PATCH", headers: { Authorization: `Bearer ${oktaToken}`, "Content-Type": "application/scim+json" }, body: JSON.stringify({ schemas: [PATCH], Operations: ops }) });

    const bare = await send("", { op: "add", path: "members", value: [{ value: b }] });
    expect(bare.status).toBe(204);
    expect(await bare.text()).toBe("");
    expect(memberIds(await scim(oktaToken, "GET", `/Groups/${gid}`))).toEqual([a, b].sort());

    const quiet = await patch("Groups", gid, { op: "replace", path: "externalId", value: "ans" });
    expect(quiet.status).toBe(204);
    expect(quiet.body).toEqual({});
    const asked = await scim(oktaToken, "PATCH", `/Groups/${gid}?attributes=displayName`, { schemas: [PATCH], Operations: [{ op: "replace", path: "externalId", value: "ans-2" }] });
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({ schemas: [GROUP], id: gid, displayName: "Answers" });
    expect((await scim(oktaToken, "GET", `/Groups/${gid}`)).body.externalId).toBe("ans-2");

    const excluded = await scim(oktaToken, "PATCH", `/Groups/${gid}?excludedAttributes=members`, { schemas: [PATCH], Operations: [{ op: "remove", path: `members[value eq "${b}"]` }] });
    expect(excluded.status).toBe(200);
    expect(excluded.body).toMatchObject({ id: gid, displayName: "Answers", externalId: "ans-2", meta: { resourceType: "Group" } });
    expect(excluded.body).not.toHaveProperty("members");

    // The members asked for: the group as written, in the order a read gives (those added last), each named.
    const withMembers = await scim(oktaToken, "PATCH", `/Groups/${gid}?attributes=members`, { schemas: [PATCH], Operations: [{ op: "add", path: "members", value: [{ value: b }] }] });
    expect(withMembers.status).toBe(200);
    expect((withMembers.body.members as Array<{ value: string; display?: string }>).map((m) => m.value)).toEqual([a, b]);
    expect((withMembers.body.members as Array<{ display?: string }>).every((m) => typeof m.display === "string")).toBe(true);
    expect(withMembers.body.members).toEqual((await scim(oktaToken, "GET", `/Groups/${gid}?attributes=members`)).body.members);
    // `attributes` given, even empty, MUST be answered 200: the whole group.
    const empty = await scim(oktaToken, "PATCH", `/Groups/${gid}?attributes=`, { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "Answers renamed" }] });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ id: gid, displayName: "Answers renamed", externalId: "ans-2" });
    expect(memberIds(empty)).toEqual([a, b].sort());

    // A refused PATCH is a SCIM error whatever it asks back.
    const refused = await patch("Groups", gid, { op: "add", path: "members", value: [{ value: "00000000-0000-4000-8000-000000000000" }] });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ schemas: [ERROR], scimType: "invalidValue" });
    // A PATCH of a person and a PUT of a group answer 200 with the resource, as before.
    const user = await patch("Users", a, { op: "replace", path: "displayName", value: "Answered" });
    expect(user.status).toBe(200);
    expect(user.body).toMatchObject({ id: a, displayName: "Answered" });
    const put = await scim(oktaToken, "PUT", `/Groups/${gid}`, { schemas: [GROUP], displayName: "Answers", members: [{ value: a }] });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: gid, displayName: "Answers" });
    expect(memberIds(put)).toEqual([a]);
  });

  it("caps a count above the maximum at the maximum, and a negative one at 0 (RFC 7644 §3.4.2.4)", async () => {
    const huge = await scim(oktaToken, "GET", "/Users?count=99999999999");
    expect(huge.status).toBe(200);
    expect(huge.body.itemsPerPage).toBe(Math.min(Number(huge.body.totalResults), 200));
    expect((await scim(oktaToken, "GET", "/Users?count=-99999999999")).body).toMatchObject({ totalResults: huge.body.totalResults, itemsPerPage: 0 });
  });
});

describe("error cases", () => {
  it.each([
    ["malformed JSON", "POST", "/Users", undefined, "{not json", 400, "invalidSyntax"],
    ["a bad filter", "GET", `/Users?filter=${encodeURIComponent('userName eq')}`, undefined, undefined, 400, "invalidFilter"],
    ["an unsupported filter attribute", "GET", `/Users?filter=${encodeURIComponent('nickName eq "x"')}`, undefined, undefined, 400, "invalidFilter"],
    ["a missing userName", "POST", "/Users", { schemas: [USER] }, undefined, 400, "invalidValue"],
    ["a userName that is no e-mail and no emails", "POST", "/Users", { schemas: [USER], userName: "plain" }, undefined, 400, "invalidValue"],
    ["a non-boolean active", "POST", "/Users", { schemas: [USER], userName: "x@y.example", active: "maybe" }, undefined, 400, "invalidValue"],
    ["a PATCH without Operations", "PATCH", "/Users/00000000-0000-4000-8000-000000000000", { schemas: [PATCH] }, undefined, 404, undefined],
    ["an unknown user", "GET", "/Users/not-an-id", undefined, undefined, 404, undefined],
    ["a group without displayName", "POST", "/Groups", { members: [] }, undefined, 400, "invalidValue"],
    ["a bad count", "GET", "/Users?count=abc", undefined, undefined, 400, "invalidValue"],
    // Text PostgreSQL cannot hold reaches the store, which refuses it: the request's fault, not a 500.
    ["a NUL in a filter's value", "GET", `/Users?filter=${encodeURIComponent('userName eq "a\u0000b@x.example"')}`, undefined, undefined, 400, "invalidFilter"],
    ["a NUL in a userName", "POST", "/Users", { schemas: [USER], userName: "nul\u0000@x.example" }, undefined, 400, "invalidValue"],
  ])("answers %s with a SCIM error", async (_name, method, path, body, raw, status, scimType) => {
    const res = await scim(oktaToken, method, path, body, raw);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ schemas: [ERROR], status: String(status), ...(scimType ? { scimType } : {}) });
  });

  // What the store could not keep as sent (or could not plan) is refused before it, naming what: never a 500,
  // never a value stored other than sent.
  const filtered = (filter: string) => `/Users?filter=${encodeURIComponent(filter)}`;
  const someone = (extra: Record<string, unknown>) => ({ schemas: [USER], userName: "unstorable@x.example", ...extra });
  it.each([
    ["an unpaired surrogate in an attribute", "POST", "/Users", someone({ displayName: "a\uD800b" }), "invalidValue", /^displayName: must not contain NUL characters or unpaired surrogates/],
    ["a NUL in a nested attribute", "POST", "/Users", someone({ name: { givenName: "a\u0000" } }), "invalidValue", /^name\.givenName: /],
    ["an unpaired surrogate in a key", "POST", "/Users", someone({ [ENTERPRISE]: { ["x\uDC00"]: "y" } }), "invalidValue", /must not contain NUL/],
    ["a number JSON cannot write back", "POST", "/Users", undefined, "invalidValue", /^nickName: must be a finite number/, '{"userName":"n@x.example","nickName":1e400}'],
    ["an attribute named __proto__", "POST", "/Users", undefined, "invalidValue", /^"__proto__" is not an attribute name/, '{"userName":"unstorable@x.example","__proto__":{"nickName":"hidden"}}'],
    ["a sub-attribute named __proto__", "POST", "/Users", undefined, "invalidValue", /^"__proto__" is not/, '{"userName":"unstorable@x.example","name":{"__proto__":{"givenName":"x"}}}'],
    ["a User resource over 64 KiB", "POST", "/Users", someone({ nickName: "n".repeat(70_000) }), "invalidValue", /^the User resource is larger than 65536 bytes/],
    ["more than 100 attribute names to project", "GET", `/Users?attributes=${Array.from({ length: 101 }, (_, i) => `a${i}`).join(",")}`, undefined, "invalidValue", /at most 100 names/],
    ["nesting deeper than 32 levels", "POST", "/Users", someone({ deep: JSON.parse(`${"[".repeat(40)}${"]".repeat(40)}`) as unknown }), "invalidValue", /must not nest deeper than 32 levels/],
    ["an externalId longer than 256 characters", "POST", "/Users", someone({ externalId: "k".repeat(257) }), "invalidValue", /^externalId is longer than 256 characters/],
    ["a group externalId longer than 256 characters", "POST", "/Groups", { schemas: [GROUP], displayName: "long", externalId: "k".repeat(257) }, "invalidValue", /^externalId is longer/],
    ["a filter nested deeper than 16 levels", "GET", filtered(`${"not (".repeat(20)}userName eq "x"${")".repeat(20)}`), undefined, "invalidFilter", /nests deeper than 16 levels/],
    ["a filter of more than 50 comparisons", "GET", filtered(Array.from({ length: 51 }, (_, i) => `emails.value co "q${i}"`).join(" or ")), undefined, "invalidFilter", /more than 50 comparisons/],
    ["a filter longer than 4,096 characters", "GET", filtered(`userName eq "${"x".repeat(4_100)}"`), undefined, "invalidFilter", /longer than 4096 characters/],
    ["a date before the year 1", "GET", filtered('meta.created gt "0000-01-01T00:00:00Z"'), undefined, "invalidFilter", /real day between the years 0001 and 9999/],
    ["a date past 9999 in UTC", "GET", filtered('meta.lastModified lt "9999-12-31T23:59:59-00:01"'), undefined, "invalidFilter", /real day/],
    ["a day no calendar has", "GET", filtered('meta.created gt "2024-02-30T00:00:00Z"'), undefined, "invalidFilter", /real day/],
  ] as Array<[string, string, string, unknown, string, RegExp, string?]>)("refuses %s with a SCIM 400 naming it, and stores nothing", async (_name, method, path, body, scimType, detail, raw) => {
    const res = await scim(oktaToken, method, path, body, raw);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ schemas: [ERROR], status: "400", scimType });
    expect(String(res.body.detail)).toMatch(detail);
    expect((await scim(oktaToken, "GET", filtered('userName eq "unstorable@x.example" or userName eq "n@x.example"'))).body.totalResults).toBe(0);
  });

  it("refuses a PATCH whose result the store could not keep, and keeps the person as they were", async () => {
    const before = await scim(oktaToken, "GET", `/Users/${t.demo.member.user_id}`);
    const res = await scim(oktaToken, "PATCH", `/Users/${t.demo.member.user_id}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "nickName", value: "\uD800" }] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ scimType: "invalidValue", detail: expect.stringMatching(/^nickName: /) });
    expect((await scim(oktaToken, "GET", `/Users/${t.demo.member.user_id}`)).body).toEqual(before.body);
  });

  it("refuses a PATCH value holding an attribute named __proto__, and keeps the person as they were", async () => {
    const before = await scim(oktaToken, "GET", `/Users/${t.demo.member.user_id}`);
    const raw = '{"schemas":["' + PATCH + '"],"Operations":[{"op":"add","value":{"__proto__":{"nickName":"hidden"}}}]}';
    const res = await scim(oktaToken, "PATCH", `/Users/${t.demo.member.user_id}`, undefined, raw);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ scimType: "invalidValue", detail: expect.stringMatching(/__proto__/) });
    expect((await scim(oktaToken, "GET", `/Users/${t.demo.member.user_id}`)).body).toEqual(before.body);
  });

  it.each([
    ["a value key through __proto__", { op: "add", value: { "__proto__.pollutedByScim": "yes" } }],
    ["a value key through constructor.prototype", { op: "add", value: { "constructor.prototype.pollutedByScim": "yes" } }],
    ["a path through constructor.prototype", { op: "add", path: "constructor.prototype", value: { pollutedByScim: "yes" } }],
    ["a value key naming a sub-attribute __proto__", { op: "add", value: { "name.__proto__": { pollutedByScim: "yes" } } }],
    ["a path naming a sub-attribute __proto__", { op: "replace", path: "name.__proto__", value: { pollutedByScim: "yes" } }],
    ["a path through an inherited method", { op: "replace", path: "toString.pollutedByScim", value: "yes" }],
    ["a value key through an inherited method", { op: "add", value: { "valueOf.pollutedByScim": "yes" } }],
    ["a path replacing a method of every object", { op: "replace", path: "hasOwnProperty.call", value: "x" }],
    ["a value key through an array's method", { op: "add", value: { "emails.map.pollutedByScim": "yes" } }],
    ["a value key of an attribute through an inherited method", { op: "add", path: "name", value: { "familyName.toString.pollutedByScim": "yes" } }],
    // The operations a path-less value's keys become carry that key's object, whose keys are walked in turn.
    ["a filtered value key's object, with a key through constructor.prototype", { op: "add", value: { 'emails[type eq "work"]': { "constructor.prototype.pollutedByScim": "yes" } } }],
    ["the extension's URN as the path, a sub-attribute's object with a key through constructor.prototype", { op: "add", path: ENTERPRISE, value: { manager: { "constructor.prototype.pollutedByScim": "yes" } } }],
    ["the manager's URN as a value key, its object with a key through constructor.prototype", { op: "add", value: { [`${ENTERPRISE}:manager`]: { "constructor.prototype.pollutedByScim": "yes" } } }],
    ["the core schema's URN as a value key, holding a key through constructor.prototype", { op: "add", value: { [USER]: { "constructor.prototype": { pollutedByScim: "yes" } } } }],
    ["a key deep inside a value's objects, through __proto__", { op: "add", value: { 'emails[type eq "work"]': { display: { "__proto__.pollutedByScim": "yes" } } } }],
    // scim-patch splits a value's key at periods its own way, a quote and a bracket meaning nothing to it.
    ["a value's key that reads as a compared value but is split as a path", { op: "add", path: "name", value: { 'a["c.__proto__.pollutedByScim.q"x': true } }],
    ["a filtered value key's object with a key that reads as a compared value", { op: "add", value: { 'emails[type eq "work"]': { 'a["c.constructor.prototype.pollutedByScim.q"x': true } } }],
  ])("refuses a PATCH reaching an object's prototype (%s), changing neither the person nor any object", async (_name, operation) => {
    const before = await scim(oktaToken, "GET", `/Users/${t.demo.member.user_id}`);
    const builtIns = [Object.prototype.toString, Object.prototype.valueOf, Object.prototype.hasOwnProperty.call, Array.prototype.map];
    const res = await scim(oktaToken, "PATCH", `/Users/${t.demo.member.user_id}`, { schemas: [PATCH], Operations: [operation] });
    expect(({} as Record<string, unknown>).pollutedByScim).toBeUndefined();
    expect([Object.prototype.toString, Object.prototype.valueOf, Object.prototype.hasOwnProperty.call, Array.prototype.map]).toEqual(builtIns);
    for (const fn of builtIns) expect((fn as unknown as Record<string, unknown>).pollutedByScim).toBeUndefined();
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ schemas: [ERROR], status: "400" });
    expect((await scim(oktaToken, "GET", `/Users/${t.demo.member.user_id}`)).body).toEqual(before.body);
  });

  it("answers a value's very long key, or a very long list inside a value, with a 400 (not held by either, nor a 500)", async () => {
    const id = t.demo.member.user_id;
    const patch = (op: unknown) => scim(oktaToken, "PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [op] });
    const longKey = await patch({ op: "add", path: "name", value: { givenName: { ["[".repeat(200_000)]: 1 } } });
    expect(longKey.status).toBe(400);
    expect(longKey.body).toMatchObject({ scimType: "invalidValue", detail: expect.stringMatching(/^Operations: a value's key "\[+" is not an attribute name$/) });
    const longList = await patch({ op: "add", path: "name", value: { givenName: Array.from({ length: 200_000 }, () => 0) } });
    expect(longList.status).toBe(400);
    expect(longList.body).toMatchObject({ scimType: "invalidValue" });
  });

  it.each([
    ["a path longer than 1,024 characters", () => [{ op: "remove", path: `x[${"a.".repeat(600)}a pr]` }], "invalidPath", /longer than 1024 characters/],
    ["a value key longer than 1,024 characters", () => [{ op: "add", value: { ["k".repeat(1_025)]: "v" } }], "invalidPath", /longer than 1024 characters/],
    ["more than 1,000 operations", () => Array.from({ length: 1_001 }, () => ({ op: "replace", path: "nickName", value: "n" })), "invalidValue", /more than 1000 operations/],
    ["more than 1,000 values in one operation", () => [{ op: "add", path: "emails", value: Array.from({ length: 1_001 }, (_, i) => ({ value: `e${i}@x.example` })) }], "invalidValue", /more than 1000 values/],
  ] as Array<[string, () => unknown[], string, RegExp]>)("refuses a PATCH with %s (its work grows faster than its size), keeping the person as they were", async (_name, operations, scimType, detail) => {
    const before = await scim(oktaToken, "GET", `/Users/${t.demo.member.user_id}`);
    const res = await scim(oktaToken, "PATCH", `/Users/${t.demo.member.user_id}`, { schemas: [PATCH], Operations: operations() });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ schemas: [ERROR], status: "400", scimType });
    expect(String(res.body.detail)).toMatch(detail);
    expect((await scim(oktaToken, "GET", `/Users/${t.demo.member.user_id}`)).body).toEqual(before.body);
  });

  it("projects each attribute once, whatever its case or how often it is named", async () => {
    const once = await scim(oktaToken, "GET", `/Users/${t.demo.member.user_id}?attributes=emails`);
    const repeated = await scim(oktaToken, "GET", `/Users/${t.demo.member.user_id}?attributes=${Array.from({ length: 300 }, (_, i) => (i % 2 ? "emails" : "EMAILS")).join(",")}`);
    expect(repeated.status).toBe(200);
    expect(repeated.body).toEqual(once.body);
  });

  it("still takes the dates RFC 3339 allows: without seconds, in lower case, with an offset", async () => {
    for (const date of ["2024-01-01T00:00Z", "2024-01-01t00:00:00z", "2024-02-29T23:59:59.5+05:30"]) {
      expect((await scim(oktaToken, "GET", filtered(`meta.created gt "${date}"`))).status, date).toBe(200);
    }
  });

  it("answers in SCIM what the gateway refuses before the service: a body over the limit, an unknown endpoint", async () => {
    // On a connection of its own: the server answers before reading the body and closes it.
    const big = JSON.stringify({ schemas: [GROUP], displayName: "Big", members: [], filler: "x".repeat(2 * 1024 * 1024) });
    const tooLarge = await new Promise<{ status: number; type: string; body: Json }>((resolve, reject) => {
      const req = httpRequest(`${root}/scim/v2/Groups`, {
        method: "POST",
        agent: false,
        headers: { Authorization: `Bearer ${oktaToken}`, "Content-Type": "application/scim+json", "Content-Length": Buffer.byteLength(big) },
      });
      req.on("response", (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), body: JSON.parse(text) as Json }));
      });
      // The server may close the connection before the whole body is written.
      req.on("error", (error: NodeJS.ErrnoException) => (error.code === "EPIPE" || error.code === "ECONNRESET" ? undefined : reject(error)));
      req.end(big);
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toMatchObject({ schemas: [ERROR], status: "413" });
    expect(tooLarge.type).toContain("application/scim+json");
    const unknown = await scim(oktaToken, "GET", "/Nothing");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ schemas: [ERROR], status: "404" });
  });

  it("answers a PATCH with a bad op as a 400", async () => {
    const res = await scim(oktaToken, "PATCH", `/Users/${t.demo.owner.user_id}`, { schemas: [PATCH], Operations: [{ op: "frobnicate", path: "active", value: true }] });
    expect(res.status).toBe(400);
    expect(res.body.schemas).toEqual([ERROR]);
  });

  it("answers 409 for a new userName whose e-mail is already a person here, changes no one, and files the refusal", async () => {
    const before = await t.json<{ items: unknown[] }>("owner", "GET", opPath("listOrganizationPeople", { org_id: orgId }));
    const audit = () => t.gateway.store.db.select().from(auditLog).where(eq(auditLog.organizationId, orgId)).orderBy(asc(auditLog.seq));
    const entries = (await audit()).length;
    const res = await scim(oktaToken, "POST", "/Users", { schemas: [USER], userName: "another-name-for-owner", emails: [{ value: t.demo.owner.email, primary: true }] });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ schemas: [ERROR], scimType: "uniqueness" });
    const after = await t.json<{ items: unknown[] }>("owner", "GET", opPath("listOrganizationPeople", { org_id: orgId }));
    expect(after.body.items).toEqual(before.body.items);
    // Every mutating call is audited, a refused one too: the integration as actor, the refusal's result and message.
    const filed = (await audit()).slice(entries);
    expect(filed).toHaveLength(1);
    expect(filed[0]).toMatchObject({ actorType: "SCIM", actorId: oktaIntegration, actionDetail: "SCIM: Create User", result: "ALREADY_EXISTS", targetType: "User" });
    expect(filed[0]!.errorMessage).toContain("already in this organization");
    // A refusal of a change to one named resource names it, as sent.
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect((await scim(oktaToken, "PATCH", `/Users/${unknown}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "active", value: false }] })).status).toBe(404);
    expect((await audit()).slice(entries + 1)).toMatchObject([{ actionDetail: "SCIM: Update User", result: "NOT_FOUND", targetIds: [unknown] }]);
  });

  it("adds an account that exists only in another organization (201), not a 409", async () => {
    const res = await scim(oktaToken, "POST", "/Users", { schemas: [USER], userName: t.demo.outsider.email });
    expect(res.status).toBe(201);
    expect(res.body.id).toBe(t.demo.outsider.user_id);
  });

  it("renames such an account here only: the other organization keeps the account's own name", async () => {
    const id = t.demo.outsider.user_id;
    // Provisioned here by the test above (run alone, by this one).
    expect([201, 409]).toContain((await scim(oktaToken, "POST", "/Users", { schemas: [USER], userName: t.demo.outsider.email })).status);
    const globex = await t.outsiderOrganizationId();
    const nameInGlobex = async () =>
      (await t.json<{ items: Array<{ id: string; name: string }> }>("outsider", "GET", opPath("listOrganizationPeople", { org_id: globex }))).body.items.find((p) => p.id === id)?.name;
    const before = await nameInGlobex();
    expect(before).toBeTruthy();
    const res = await scim(oktaToken, "PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "Renamed By Acme" }] });
    expect(res.status).toBe(200);
    expect(res.body.displayName).toBe("Renamed By Acme");
    expect(await nameInGlobex()).toBe(before);
  });

  it("renames an account it provisioned first, wherever else the account has been added since", async () => {
    const created = await scim(oktaToken, "POST", "/Users", { schemas: [USER], userName: "home@acme-first.example", displayName: "Home Before" });
    expect(created.status).toBe(201);
    const id = String(created.body.id);
    // The outsider's own organization (the tests above made them a person of this one too).
    const globex = await t.outsiderOrganizationId();
    expect((await t.json("outsider", "POST", opPath("inviteOrganizationPerson", { org_id: globex }), { body: { email: "home@acme-first.example" } })).status).toBe(201);
    const res = await scim(oktaToken, "PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "Home After" }] });
    expect(res.status).toBe(200);
    const inGlobex = await t.json<{ items: Array<{ id: string; name: string }> }>("outsider", "GET", opPath("listOrganizationPeople", { org_id: globex }));
    expect(inGlobex.body.items.find((p) => p.id === id)?.name).toBe("Home After");
  });
});

describe("uniqueness under concurrent requests", () => {
  // On PostgreSQL these requests run side by side (on PGlite one at a time): the store, not a
  // read before the write, must keep the name unique.
  const settled = (requests: Array<Promise<{ status: number; body: Json }>>) => Promise.all(requests);

  it("creates one person when several arrive at once with one userName, in any case", async () => {
    const results = await settled(
      Array.from({ length: 8 }, (_, i) => scim(oktaToken, "POST", "/Users", { schemas: [USER], userName: i % 2 ? "Racer" : "racer", emails: [{ value: `racer-${i}@race.example`, primary: true }] })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201)) expect(r).toMatchObject({ status: 409, body: { schemas: [ERROR], scimType: "uniqueness" } });
    const found = await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent('userName eq "RACER"')}`);
    expect(found.body.totalResults).toBe(1);
  });

  it("renames one of two people when both are renamed at once to one userName", async () => {
    const ids: string[] = [];
    for (const name of ["rename-a@race.example", "rename-b@race.example"]) {
      const res = await scim(oktaToken, "POST", "/Users", { schemas: [USER], userName: name });
      expect(res.status).toBe(201);
      ids.push(String(res.body.id));
    }
    const results = await settled(ids.map((id) => scim(oktaToken, "PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "userName", value: "renamed@race.example" }] })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(results.find((r) => r.status === 409)?.body).toMatchObject({ schemas: [ERROR], scimType: "uniqueness" });
    const found = await scim(oktaToken, "GET", `/Users?filter=${encodeURIComponent('userName eq "renamed@race.example"')}`);
    expect(found.body.totalResults).toBe(1);
  });

  it("answers the store's clash on either name as a 409 uniqueness, also when the driver's error is wrapped", async () => {
    // What the requests above meet on PostgreSQL when both pass the service's check: deterministic here.
    for (const [constraint, wrapped] of [["memberships_scim_user_name_uq", false], ["scim_groups_name_uq", true]] as const) {
      const app = new Hono();
      const clash = Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505", constraint });
      app.get("/clash", () => {
        throw wrapped ? Object.assign(new Error("Failed query"), { cause: clash }) : clash;
      });
      app.onError(onScimError);
      const res = await app.request("/clash");
      expect(res.status).toBe(409);
      expect(await res.json()).toMatchObject({ schemas: [ERROR], status: "409", scimType: "uniqueness" });
    }
  });

  it("creates one group when several arrive at once with one displayName", async () => {
    const results = await settled(Array.from({ length: 8 }, (_, i) => scim(oktaToken, "POST", "/Groups", { schemas: [GROUP], displayName: i % 2 ? "Racers" : "RACERS", members: [] })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201)) expect(r).toMatchObject({ status: 409, body: { schemas: [ERROR], scimType: "uniqueness" } });
    const found = await scim(oktaToken, "GET", `/Groups?filter=${encodeURIComponent('displayName eq "racers"')}`);
    expect(found.body.totalResults).toBe(1);
  });
});

describe("the integration's computed numbers", () => {
  it("counts the people the integration provisioned, never a seeded number", async () => {
    const res = await t.json<{ user_count: number }>("owner", "GET", opPath("getSCIMIntegration", { org_id: orgId, integration_id: oktaIntegration }));
    const provisioned = await t.json<{ user_count: number; users: unknown[]; groups: unknown[] }>("owner", "GET", opPath("getSCIMIntegrationProvisioned", { org_id: orgId, integration_id: oktaIntegration }));
    expect(provisioned.status).toBe(200);
    expect(res.body.user_count).toBe(provisioned.body.user_count);
    expect(provisioned.body.user_count).toBe(provisioned.body.users.length);
    expect(provisioned.body.user_count).toBeGreaterThanOrEqual(14);
  });
});

describe("what the gateway keeps in memory", () => {
  it("sees at once a person provisioned into the organization, whose earlier answers were kept", async () => {
    // An account of no organization yet, signing requests with a key of its own.
    const { db, masterKey } = t.gateway.deps;
    const account = await createUser(db, { email: "newcomer@elsewhere.example", name: "New Comer" });
    const key = await createApiKey(db, masterKey, account.id, "newcomer");
    const newcomer = { user_id: account.id, email: account.email, access_key_id: key.accessKeyId, secret_key: key.secretKey };
    const people = () => t.json<{ message?: string }>(newcomer, "GET", opPath("listOrganizationPeople", { org_id: orgId }));
    // The token was just used: the POST below writes nothing but the person (the token's last use
    // is written at most once a second).
    expect((await scim(oktaToken, "GET", "/Users?count=1")).status).toBe(200);
    // Not a member. Its organizations are read once and kept in the gateway's read cache (a
    // read: nothing is written, not even an audit entry).
    const before = await people();
    expect(before.status).toBe(403);
    expect(before.body.message).toContain("not a member of this organization");

    // Okta provisions the account into the organization (the store's function, one statement).
    const created = await scim(oktaToken, "POST", "/Users", {
      schemas: [USER],
      userName: account.email,
      name: { givenName: "New", familyName: "Comer" },
      emails: [{ value: account.email, type: "work", primary: true }],
      active: true,
    });
    expect(created.status).toBe(201);
    expect(created.body.id).toBe(account.id);

    // At once, with no other write in between: a member now (whose role decides the rest).
    const after = await people();
    expect(after.body.message ?? "").not.toContain("not a member of this organization");
  });

  it("keeps a token's lookup while people are provisioned, and refuses the token at once when it is deleted", async () => {
    const idp = await newIntegration("Kept", "okta");
    const changes = t.gateway.store.changes;
    expect((await scim(idp.token, "GET", "/Users?count=1")).status).toBe(200);
    const version = changes.scimTokensVersion;
    const started = Date.now();
    for (let n = 0; n < 10; n++) {
      const res = await scim(idp.token, "POST", "/Users", { schemas: [USER], userName: `kept${n}@kept.example`, active: true });
      expect(res.status).toBe(201);
    }
    // Each POST wrote a person, a membership and an audit entry; only the token's last use (written
    // at most once a second, two statements: the token and its integration) moved the version its
    // cached lookup is kept under.
    expect(changes.scimTokensVersion - version).toBeLessThanOrEqual(2 * (Math.ceil((Date.now() - started) / 1000) + 1));
    const listed = await t.json<{ items: Array<{ key_id: string }> }>("owner", "GET", opPath("listSCIMIntegrationTokens", { org_id: orgId, integration_id: idp.id }));
    const keyId = listed.body.items[0]!.key_id;
    const deleted = await t.call("owner", "DELETE", opPath("deleteSCIMIntegrationToken", { org_id: orgId, integration_id: idp.id, access_key_id: keyId }));
    expect(deleted.status).toBe(204);
    expect((await scim(idp.token, "POST", "/Users", { schemas: [USER], userName: "late@kept.example" })).status).toBe(401);
  });
});

describe("what a change does not name stays as it was", () => {
  /** A person provisioned through the token, and their id. */
  async function provisioned(token: string, userName: string, extra: Record<string, unknown> = {}): Promise<string> {
    const created = await scim(token, "POST", "/Users", { schemas: [USER], userName, emails: [{ value: userName, type: "work", primary: true }], ...extra });
    expect(created.status).toBe(201);
    return String(created.body.id);
  }

  it("keeps a suspended person suspended when a PUT leaves active out, or a PATCH removes it or sets it null; an active one active", async () => {
    const userName = "dormant@keep.example";
    const id = await provisioned(oktaToken, userName);
    const suspend = () => scim(oktaToken, "PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "active", value: false }] });
    const changes: Array<[string, unknown]> = [
      ["PUT", { schemas: [USER], userName, name: { givenName: "Dora", familyName: "Mant" }, emails: [{ value: userName, type: "work", primary: true }] }],
      ["PATCH", { schemas: [PATCH], Operations: [{ op: "remove", path: "active" }] }],
      ["PATCH", { schemas: [PATCH], Operations: [{ op: "replace", path: "active", value: null }] }],
    ];
    for (const [method, body] of changes) {
      // Each on a suspended person (whatever the one before did).
      expect((await suspend()).body.active).toBe(false);
      const changed = await scim(oktaToken, method, `/Users/${id}`, body);
      expect(changed.status, JSON.stringify(body)).toBe(200);
      expect(changed.body.active, JSON.stringify(body)).toBe(false);
      expect((await scim(oktaToken, "GET", `/Users/${id}`)).body.active, JSON.stringify(body)).toBe(false);
    }
    const [row] = await t.gateway.store.db.select({ status: memberships.status }).from(memberships).where(and(eq(memberships.userId, id), eq(memberships.organizationId, orgId)));
    expect(row?.status).toBe("suspended");
    // The PUT took what it did name.
    expect((await scim(oktaToken, "GET", `/Users/${id}`)).body.name).toEqual({ givenName: "Dora", familyName: "Mant" });
    // Restored by true, then kept active by a change that does not name it.
    expect((await scim(oktaToken, "PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "active", value: true }] })).body.active).toBe(true);
    for (const [method, body] of changes) expect((await scim(oktaToken, method, `/Users/${id}`, body)).body.active, JSON.stringify(body)).toBe(true);
    // A person created without it is active.
    expect((await scim(oktaToken, "GET", `/Users/${await provisioned(oktaToken, "fresh@keep.example")}`)).body.active).toBe(true);
  });

  it("keeps a group's members (and the bindings they hold through it) when a PUT leaves members out; members [] empties it", async () => {
    const idp = await newIntegration("Keeper", "okta");
    const people = [await provisioned(idp.token, "kept.one@keep.example"), await provisioned(idp.token, "kept.two@keep.example")];
    const [auditor] = await t.gateway.store.db.select().from(roles).where(and(eq(roles.organizationId, orgId), eq(roles.roleName, "Auditor")));
    const mapped = await t.call("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: orgId, integration_id: idp.id }), {
      body: { mappings: [{ group_display_name: "Keepers", role_id: auditor!.id, scope_type: "org", scope_object_id: orgId }] },
    });
    expect(mapped.status).toBe(200);
    const group = await scim(idp.token, "POST", "/Groups", { schemas: [GROUP], displayName: "Keepers", members: people.map((value) => ({ value })) });
    expect(group.status).toBe(201);
    const gid = String(group.body.id);
    const memberIds = (res: { body: Json }) => ((res.body.members ?? []) as Array<{ value: string }>).map((m) => m.value).sort();
    const bound = async () => (await t.gateway.store.db.select({ userId: roleBindings.userId }).from(roleBindings).where(eq(roleBindings.viaGroupId, gid))).map((b) => b.userId).sort();
    expect(await bound()).toEqual([...people].sort());

    // The same name, an external id: the members and their bindings stay.
    const same = await scim(idp.token, "PUT", `/Groups/${gid}`, { schemas: [GROUP], displayName: "Keepers", externalId: "kept" });
    expect(same.status).toBe(200);
    expect(memberIds(same)).toEqual([...people].sort());
    expect(await bound()).toEqual([...people].sort());
    // Renamed: still its members.
    const renamed = await scim(idp.token, "PUT", `/Groups/${gid}`, { schemas: [GROUP], displayName: "Keepers renamed" });
    expect(renamed.status).toBe(200);
    expect(renamed.body.displayName).toBe("Keepers renamed");
    expect(memberIds(renamed)).toEqual([...people].sort());
    expect(memberIds(await scim(idp.token, "GET", `/Groups/${gid}`))).toEqual([...people].sort());
    // An empty list, or null (RFC 7644 §3.5.1: how a client clears a multi-valued attribute), empties it.
    const emptied = await scim(idp.token, "PUT", `/Groups/${gid}`, { schemas: [GROUP], displayName: "Keepers renamed", members: [] });
    expect(emptied.status).toBe(200);
    expect(memberIds(emptied)).toEqual([]);
    expect(memberIds(await scim(idp.token, "GET", `/Groups/${gid}`))).toEqual([]);
    expect((await scim(idp.token, "PUT", `/Groups/${gid}`, { schemas: [GROUP], displayName: "Keepers renamed", members: [{ value: people[0] }] })).status).toBe(200);
    const nulled = await scim(idp.token, "PUT", `/Groups/${gid}`, { schemas: [GROUP], displayName: "Keepers renamed", members: null });
    expect(nulled.status).toBe(200);
    expect(memberIds(await scim(idp.token, "GET", `/Groups/${gid}`))).toEqual([]);
  });

  it("adds a path-less value's e-mail only if it is not there yet (RFC 7644 §3.5.2.1), as an add on the path emails does", async () => {
    const id = await provisioned(oktaToken, "once@keep.example");
    const work = { value: "once@keep.example", type: "work", primary: true };
    const again = await scim(oktaToken, "PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "add", value: { emails: [work] } }] });
    expect(again.status).toBe(200);
    expect(again.body.emails).toEqual([work]);
    expect((await scim(oktaToken, "GET", `/Users/${id}`)).body.emails).toEqual([work]);
    // A new one is still added, beside the one there (and with other attributes of the same value).
    const home = { value: "once@home.example", type: "home" };
    const added = await scim(oktaToken, "PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "add", value: { emails: [work, home], title: "Keeper" } }] });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ emails: [work, home], title: "Keeper" });
    expect((await scim(oktaToken, "GET", `/Users/${id}`)).body.emails).toEqual([work, home]);
  });

  it("lists in a person's groups only the reading integration's, never another integration's of the organization", async () => {
    const a = await newIntegration("Isolated A", "okta");
    const b = await newIntegration("Isolated B", "azure-ad");
    const id = await provisioned(a.token, "shared@keep.example");
    const theirs = await scim(b.token, "POST", "/Groups", { schemas: [GROUP], displayName: "B only", members: [{ value: id }] });
    expect(theirs.status).toBe(201);
    const groupsSeen = async (token: string) => (((await scim(token, "GET", `/Users/${id}`)).body.groups ?? []) as Array<{ value: string; display: string }>).map((g) => [g.value, g.display]);
    // A sees the person (people are the organization's), but not B's group.
    expect(await groupsSeen(a.token)).toEqual([]);
    expect(await groupsSeen(b.token)).toEqual([[String(theirs.body.id), "B only"]]);
    const ours = await scim(a.token, "POST", "/Groups", { schemas: [GROUP], displayName: "A only", members: [{ value: id }] });
    expect(ours.status).toBe(201);
    expect(await groupsSeen(a.token)).toEqual([[String(ours.body.id), "A only"]]);
    expect(await groupsSeen(b.token)).toEqual([[String(theirs.body.id), "B only"]]);
  });
});
