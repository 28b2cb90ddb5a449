import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Person } from "@/lib/contract/people";
import { addMember, createApiKey, createOrganization, createUser } from "../../admin";
import type { DemoUser } from "../../seed";
import type { Database } from "../../store/client";
import { listMfaMethods, setMfaMethods } from "../../store/queries/mfa";
import { acceptTotpStep, createPendingTotp, listFactors } from "../../store/queries/mfa-factors";
import { holdCallerMembership } from "../../authz";
import { applyBindings } from "../../store/queries/iam";
import { lockOwners, removePerson, setSsoRequired, ssoRequiredAnywhere } from "../../store/queries/people";
import { holdScimIntegration, insertScimToken } from "../../store/queries/scim";
import { insertSsoProvider } from "../../store/queries/sso";
import { memberships, registryTokens, roles, s3Keys, scimTokens, ssoProviders } from "../../store/schema";
import { createTestGateway, opPath, type TestGateway } from "../../testing";

/**
 * An owner is reached only by an owner: an Organization Admin holds every permission, but neither
 * directly (removal, SSO requirement, MFA reset) nor through a SCIM token of their own can they lock
 * an owner out; and an active owner always stays, whichever way people are removed or suspended.
 */

let t: TestGateway;
let org: string;
/** An Organization Admin who is no owner. */
let admin: DemoUser;
/** A second owner. */
let owner2: DemoUser;

const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

async function newPerson(email: string, relation: "owner" | "member"): Promise<DemoUser> {
  const { db } = t.gateway.store;
  const user = await createUser(db, { email });
  await addMember(db, org, user.id, relation);
  const key = await createApiKey(db, t.gateway.deps.masterKey, user.id, "test");
  return { user_id: user.id, email: user.email, access_key_id: key.accessKeyId, secret_key: key.secretKey };
}

async function scimToken(maker: DemoUser): Promise<string> {
  const res = await t.json<{ api_key_info: { api_key: string } }>(maker, "POST", opPath("createSCIMIntegration", { org_id: org }), {
    body: { name: `IdP of ${maker.email}`, identity_provider: "okta", token: { alias: "t", expires_at: new Date(Date.now() + 86_400_000).toISOString() } },
  });
  expect(res.status).toBe(200);
  return res.body.api_key_info.api_key;
}

async function scim(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await t.gateway.app.request(`http://gateway.test/scim/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const setActive = (token: string, userId: string, active: boolean) =>
  scim(token, "PATCH", `/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "active", value: active }] });

async function statusOf(userId: string): Promise<string | undefined> {
  const [row] = await t.gateway.store.db
    .select({ status: memberships.status })
    .from(memberships)
    .where(and(eq(memberships.organizationId, org), eq(memberships.userId, userId)));
  return row?.status;
}

beforeAll(async () => {
  t = await createTestGateway();
  org = t.demo.organization_id;
  admin = await newAdmin("admin@acme.example");
  owner2 = await newPerson("owner2@acme.example", "owner");
});

/** A person who is no owner, bound Organization Admin. */
async function newAdmin(email: string): Promise<DemoUser> {
  const person = await newPerson(email, "member");
  const [role] = await t.gateway.store.db.select().from(roles).where(and(eq(roles.organizationId, org), eq(roles.roleName, "Organization Admin")));
  const granted = await t.call("owner", "POST", opPath("applyRoleBindings", { user_id: person.user_id }), {
    body: { bindings_to_create: [{ customer_id: person.user_id, role_id: role!.id, scope_type: "org", scope_object_id: org }], bindings_to_delete: [] },
  });
  expect(granted.status).toBe(200);
  return person;
}
afterAll(() => t.close());

describe("an Organization Admin who is no owner", () => {
  it("may not remove an owner, require or lift SSO sign-in of one, or reset their second factors (403), and changes nothing", async () => {
    const { db } = t.gateway.store;
    const pending = await createPendingTotp(db, owner2.user_id, "sealed", "Authenticator app");
    expect(await acceptTotpStep(db, pending, 1_000)).toBe(true);

    const remove = await t.json<{ message: string }>(admin, "DELETE", opPath("removeOrganizationPerson", { org_id: org, user_id: owner2.user_id }));
    expect(remove.status).toBe(403);
    expect(remove.body.message).toMatch(/only an owner of the organization may remove an owner/);
    for (const ssoRequired of [true, false]) {
      const res = await t.call(admin, "PATCH", opPath("updateOrganizationPerson", { org_id: org, user_id: owner2.user_id }), { body: { sso_required: ssoRequired } });
      expect(res.status).toBe(403);
    }
    expect((await t.call(admin, "DELETE", opPath("resetOrganizationPersonMfa", { org_id: org, user_id: owner2.user_id }))).status).toBe(403);

    expect(await statusOf(owner2.user_id)).toBe("active");
    expect((await listFactors(db, owner2.user_id)).map((f) => f.method)).toEqual(["totp"]);
    const listed = await t.json<{ items: Person[] }>("owner", "GET", opPath("listOrganizationPeople", { org_id: org }), { query: { q: "owner2@" } });
    expect(listed.body.items[0]).toMatchObject({ id: owner2.user_id, sso_required: false, mfa_methods: ["totp"] });
  });

  it("may not reach an owner's account through another organization where they made the owner a plain member", async () => {
    const { db } = t.gateway.store;
    // The admin's own organization; they add owner2 (whose home is Acme, where they are an owner) as a member.
    const initech = await createOrganization(db, { name: "Initech", ownerId: admin.user_id });
    const added = await t.call(admin, "POST", opPath("inviteOrganizationPerson", { org_id: initech.id }), { body: { email: owner2.email } });
    expect(added.status).toBe(201);
    const pending = await createPendingTotp(db, owner2.user_id, "sealed", "Authenticator app");
    expect(await acceptTotpStep(db, pending, 2_000)).toBe(true);
    const factors = (await listFactors(db, owner2.user_id)).map((f) => f.id);
    expect(factors).not.toEqual([]);

    const reset = await t.json<{ message: string }>(admin, "DELETE", opPath("resetOrganizationPersonMfa", { org_id: initech.id, user_id: owner2.user_id }));
    expect(reset.status).toBe(403);
    expect(reset.body.message).toBe(
      `Resetting second factors applies to every organization of user ${owner2.user_id}, and the account's home organization decides: only an owner there may reset the second factors of an owner`,
    );
    const sso = await t.call(admin, "PATCH", opPath("updateOrganizationPerson", { org_id: initech.id, user_id: owner2.user_id }), { body: { sso_required: true } });
    expect(sso.status).toBe(403);
    expect((await listFactors(db, owner2.user_id)).map((f) => f.id)).toEqual(factors);
    expect(await ssoRequiredAnywhere(db, owner2.user_id)).toBe(false);
  });

  it("may not change an owner's role bindings (403); an owner may", async () => {
    const apply = (who: DemoUser, body: unknown) => t.call(who, "POST", opPath("applyRoleBindings", { user_id: owner2.user_id }), { body });
    const bindingsOf = async () =>
      (await t.json<{ role_bindings: Array<{ id: string; role_name: string }> }>("owner", "GET", opPath("listRoleBindings"), { query: { user_id: owner2.user_id } })).body.role_bindings;
    const [auditor] = await t.gateway.store.db.select().from(roles).where(and(eq(roles.organizationId, org), eq(roles.roleName, "Auditor")));
    const create = { bindings_to_create: [{ customer_id: owner2.user_id, role_id: auditor!.id, scope_type: "org", scope_object_id: org }], bindings_to_delete: [] };
    const before = await bindingsOf();
    expect((await apply(admin, create)).status).toBe(403);
    expect((await apply(admin, { bindings_to_create: [], bindings_to_delete: [before[0]!.id] })).status).toBe(403);
    expect(await bindingsOf()).toEqual(before);
    expect((await apply(t.demo.owner, create)).status).toBe(200);
    const added = (await bindingsOf()).find((b) => b.role_name === "Auditor")!;
    expect((await apply(t.demo.owner, { bindings_to_create: [], bindings_to_delete: [added.id] })).status).toBe(200);
    expect(await bindingsOf()).toEqual(before);
  });

  it("may not stop requiring MFA (403: the owners would sign in without a second factor), but may change the methods; an owner may stop it", async () => {
    const { db } = t.gateway.store;
    await setMfaMethods(db, org, ["totp"], new Date());
    const patch = (who: DemoUser, methods: string[]) =>
      t.json<{ message: string }>(who, "PATCH", opPath("OrganizationsMFAService_UpdateOrganizationMFA", { organization_id: org }), { body: { intended_methods: methods } });
    const off = await patch(admin, []);
    expect(off.status).toBe(403);
    expect(off.body.message).toMatch(/only an owner of the organization may stop requiring MFA/);
    expect(await listMfaMethods(db, org)).toEqual([expect.objectContaining({ method: "totp" })]);
    expect((await patch(admin, ["webauthn", "totp"])).status).toBe(200);
    expect((await patch(t.demo.owner, [])).status).toBe(200);
    expect(await listMfaMethods(db, org)).toEqual([]);
    // Requiring none where none is required changes nothing.
    expect((await patch(admin, [])).status).toBe(200);
  });

  it("a person resets their own second factors with their key, as a sole owner who lost them must", async () => {
    const { db } = t.gateway.store;
    const pending = await createPendingTotp(db, admin.user_id, "sealed", "Authenticator app");
    expect(await acceptTotpStep(db, pending, 3_000)).toBe(true);
    expect((await t.call(admin, "DELETE", opPath("resetOrganizationPersonMfa", { org_id: org, user_id: admin.user_id }))).status).toBe(200);
    expect(await listFactors(db, admin.user_id)).toEqual([]);
  });

  it("still does all of it to a person who is no owner, and an owner does it to an owner", async () => {
    const path = opPath("updateOrganizationPerson", { org_id: org, user_id: t.demo.member.user_id });
    expect((await t.call(admin, "PATCH", path, { body: { sso_required: true } })).status).toBe(200);
    expect((await t.call(admin, "PATCH", path, { body: { sso_required: false } })).status).toBe(200);
    expect((await t.call(admin, "DELETE", opPath("resetOrganizationPersonMfa", { org_id: org, user_id: t.demo.member.user_id }))).status).toBe(200);
    expect((await t.call("owner", "DELETE", opPath("resetOrganizationPersonMfa", { org_id: org, user_id: owner2.user_id }))).status).toBe(200);
    expect(await listFactors(t.gateway.store.db, owner2.user_id)).toEqual([]);
  });

  it("may not suspend or remove an owner with a SCIM token of their own (a SCIM 403); an owner's token may", async () => {
    const adminsToken = await scimToken(admin);
    const off = await setActive(adminsToken, owner2.user_id, false);
    expect(off.status).toBe(403);
    expect(off.body).toMatchObject({ status: "403", detail: expect.stringMatching(/token an active owner of the organization made/) });
    expect((await scim(adminsToken, "DELETE", `/Users/${owner2.user_id}`)).status).toBe(403);
    expect(await statusOf(owner2.user_id)).toBe("active");
    // The same token still manages the people who are no owners.
    expect((await setActive(adminsToken, t.demo.member.user_id, false)).status).toBe(200);
    expect((await setActive(adminsToken, t.demo.member.user_id, true)).status).toBe(200);

    const ownersToken = await scimToken(t.demo.owner);
    expect((await setActive(ownersToken, owner2.user_id, false)).status).toBe(200);
    expect(await statusOf(owner2.user_id)).toBe("suspended");
    expect((await setActive(ownersToken, owner2.user_id, true)).status).toBe(200);
    expect(await statusOf(owner2.user_id)).toBe("active");
  });

  it("an owner's token reaches owners only while its maker is an active owner (a suspended maker's token is gone)", async () => {
    const owner2sToken = await scimToken(owner2);
    const ownersToken = await scimToken(t.demo.owner);
    expect((await setActive(ownersToken, owner2.user_id, false)).status).toBe(200);
    expect((await setActive(owner2sToken, t.demo.owner.user_id, false)).status).toBe(401);
    expect(await statusOf(t.demo.owner.user_id)).toBe("active");
    expect((await setActive(ownersToken, owner2.user_id, true)).status).toBe(200);
  });
});

describe("what a person made to act for the organization ends with them", () => {
  async function s3KeyOf(who: DemoUser): Promise<() => Promise<string | undefined>> {
    const made = await t.json<{ access_key_id: string }>(who, "POST", opPath("createS3Key", { org_id: org }), { body: { alias: `key of ${who.email}` } });
    expect(made.status).toBe(200);
    return async () =>
      (await t.json<{ items: Array<{ access_key_id: string; status: string }> }>("owner", "GET", opPath("listS3Keys", { org_id: org }))).body.items.find((k) => k.access_key_id === made.body.access_key_id)?.status;
  }

  /** How many container registry tokens of the organization the person holds, after making one. */
  async function registryTokensOf(who: DemoUser): Promise<() => Promise<number>> {
    expect((await t.call(who, "POST", opPath("createCcrToken"), { body: { alias: `token of ${who.email}` } })).status).toBe(200);
    const { db } = t.gateway.store;
    return async () => (await db.select().from(registryTokens).where(and(eq(registryTokens.organizationId, org), eq(registryTokens.userId, who.user_id)))).length;
  }

  it("removed: their SCIM tokens answer 401 (they cannot provision themselves back), their S3 keys are disabled and their registry tokens deleted; others' stay", async () => {
    const leaver = await newAdmin("leaver@acme.example");
    const theirs = await scimToken(leaver);
    const ownersToken = await scimToken(t.demo.owner);
    const theirKey = await s3KeyOf(leaver);
    const ownersKey = await s3KeyOf(t.demo.owner);
    const theirRegistryTokens = await registryTokensOf(leaver);
    const ownersRegistryTokens = await registryTokensOf(t.demo.owner);
    expect(await theirRegistryTokens()).toBe(1);
    expect((await scim(theirs, "GET", "/Users?count=1")).status).toBe(200);
    expect(await theirKey()).toBe("enabled");

    expect((await t.call("owner", "DELETE", opPath("removeOrganizationPerson", { org_id: org, user_id: leaver.user_id }))).status).toBe(204);
    const back = await scim(theirs, "POST", "/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: leaver.email, emails: [{ value: leaver.email, primary: true }] });
    expect(back.status).toBe(401);
    expect(await statusOf(leaver.user_id)).toBeUndefined();
    expect(await theirKey()).toBe("disabled");
    expect(await theirRegistryTokens()).toBe(0);
    expect((await scim(ownersToken, "GET", "/Users?count=1")).status).toBe(200);
    expect(await ownersKey()).toBe("enabled");
    expect(await ownersRegistryTokens()).toBeGreaterThan(0);
  });

  it("suspended over SCIM: the same, and reactivation brings neither back", async () => {
    const leaver = await newAdmin("suspended@acme.example");
    const theirs = await scimToken(leaver);
    const theirKey = await s3KeyOf(leaver);
    const theirRegistryTokens = await registryTokensOf(leaver);
    const ownersToken = await scimToken(t.demo.owner);
    expect((await setActive(ownersToken, leaver.user_id, false)).status).toBe(200);
    expect((await scim(theirs, "GET", "/Users?count=1")).status).toBe(401);
    expect(await theirKey()).toBe("disabled");
    expect(await theirRegistryTokens()).toBe(0);
    expect((await setActive(ownersToken, leaver.user_id, true)).status).toBe(200);
    expect((await scim(theirs, "GET", "/Users?count=1")).status).toBe(401);
    expect(await theirKey()).toBe("disabled");
    expect(await theirRegistryTokens()).toBe(0);
  });

  it("a maker who loses scim.manage (IAM takes away the role that granted it) loses their SCIM tokens; a change that leaves it keeps them", async () => {
    const demoted = await newAdmin("demoted@acme.example");
    const kept = await newAdmin("kept@acme.example");
    const theirs = await scimToken(demoted);
    const keptToken = await scimToken(kept);
    const bindingsOf = async (who: DemoUser) =>
      (await t.json<{ role_bindings: Array<{ id: string; role_name: string }> }>("owner", "GET", opPath("listRoleBindings"), { query: { user_id: who.user_id } })).body.role_bindings;
    const apply = (who: DemoUser, body: unknown) => t.call(t.demo.owner, "POST", opPath("applyRoleBindings", { user_id: who.user_id }), { body });
    // The kept admin loses a binding that granted no scim.manage: their token works on.
    const baseline = (await bindingsOf(kept)).find((b) => b.role_name === "Organization Member")!;
    expect((await apply(kept, { bindings_to_create: [], bindings_to_delete: [baseline.id] })).status).toBe(200);
    expect((await scim(keptToken, "GET", "/Users?count=1")).status).toBe(200);
    // The demoted one loses Organization Admin: their token is gone, and they may make no other.
    const adminBinding = (await bindingsOf(demoted)).find((b) => b.role_name === "Organization Admin")!;
    expect((await apply(demoted, { bindings_to_create: [], bindings_to_delete: [adminBinding.id] })).status).toBe(200);
    expect((await scim(theirs, "GET", "/Users?count=1")).status).toBe(401);
    expect((await scim(keptToken, "GET", "/Users?count=1")).status).toBe(200);
  });

  it("a maker whose scim.manage came through an identity provider's group loses their SCIM tokens when the group lets them go", async () => {
    const ownersIdp = await t.json<{ integration: { id: string }; api_key_info: { api_key: string } }>("owner", "POST", opPath("createSCIMIntegration", { org_id: org }), {
      body: { name: "Admins' IdP", identity_provider: "okta", token: { alias: "t", expires_at: new Date(Date.now() + 86_400_000).toISOString() } },
    });
    expect(ownersIdp.status).toBe(200);
    const [adminRole] = await t.gateway.store.db.select().from(roles).where(and(eq(roles.organizationId, org), eq(roles.roleName, "Organization Admin")));
    const mapped = await t.call("owner", "PUT", opPath("putSCIMGroupMappings", { org_id: org, integration_id: ownersIdp.body.integration.id }), {
      body: { mappings: [{ group_display_name: "Console admins", role_id: adminRole!.id, scope_type: "org", scope_object_id: org }] },
    });
    expect(mapped.status).toBe(200);
    const person = await newPerson("grouped@acme.example", "member");
    const idp = ownersIdp.body.api_key_info.api_key;
    const group = await scim(idp, "POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Console admins", members: [{ value: person.user_id }] });
    expect(group.status).toBe(201);
    const theirs = await scimToken(person);
    expect((await scim(theirs, "GET", "/Users?count=1")).status).toBe(200);
    const left = await scim(idp, "PATCH", `/Groups/${String(group.body.id)}`, { schemas: [PATCH_OP], Operations: [{ op: "remove", path: `members[value eq "${person.user_id}"]` }] });
    expect(left.status).toBe(204);
    expect((await scim(theirs, "GET", "/Users?count=1")).status).toBe(401);
    expect((await scim(idp, "GET", "/Users?count=1")).status).toBe(200);
  });

  // PostgreSQL only: PGlite runs one transaction at a time, so the requests would only start once the removal ended.
  it.skipIf(!process.env.TEST_DATABASE_URL)("made while their removal is under way (checked before it, stored after it ended their credentials): refused, nothing left behind (PostgreSQL)", async () => {
    const leaver = await newAdmin("racing@acme.example");
    const integration = await t.json<{ integration: { id: string } }>("owner", "POST", opPath("createSCIMIntegration", { org_id: org }), {
      body: { name: "IdP for the race", identity_provider: "okta" },
    });
    expect(integration.status).toBe(200);
    // The leaver's access read (and cached) before the removal starts: the requests below pass their checks, as the
    // removal has not committed, and reach their transactions while it holds the membership.
    expect((await t.call(leaver, "GET", opPath("listS3Keys", { org_id: org }))).status).toBe(200);
    const { db } = t.gateway.store;
    let removing!: () => void;
    const underWay = new Promise<void>((resolve) => (removing = resolve));
    // The removal has done all it does, its credentials' end included, and has not committed yet.
    const removal = db.transaction(async (tx) => {
      expect(await removePerson(tx as unknown as Database, org, leaver.user_id)).toBe(true);
      removing();
      await new Promise((resolve) => setTimeout(resolve, 400));
    });
    await underWay;
    const [token, key, registry] = await Promise.all([
      t.json<{ message: string }>(leaver, "POST", opPath("createSCIMIntegrationToken", { org_id: org, integration_id: integration.body.integration.id }), {
        body: { alias: "late", expires_at: new Date(Date.now() + 86_400_000).toISOString() },
      }),
      t.json<{ message: string }>(leaver, "POST", opPath("createS3Key", { org_id: org }), { body: { alias: "late" } }),
      // The organization is the caller's first, read before the removal commits; the token's own transaction waits for it.
      t.json<{ message: string }>(leaver, "POST", opPath("createCcrToken"), { body: { alias: "late" } }),
    ]);
    await removal;
    expect([token.status, key.status, registry.status]).toEqual([403, 403, 400]);
    expect(await db.select().from(scimTokens).where(eq(scimTokens.userId, leaver.user_id))).toEqual([]);
    expect(await db.select().from(s3Keys).where(eq(s3Keys.userId, leaver.user_id))).toEqual([]);
    expect(await db.select().from(registryTokens).where(eq(registryTokens.userId, leaver.user_id))).toEqual([]);
  });
});

// PostgreSQL only, as above: a role change and a token made for its person at once, each way round.
describe.skipIf(!process.env.TEST_DATABASE_URL)("a SCIM token made while its maker loses scim.manage (PostgreSQL)", () => {
  const adminBindingOf = async (who: DemoUser) =>
    (await t.json<{ role_bindings: Array<{ id: string; role_name: string }> }>("owner", "GET", opPath("listRoleBindings"), { query: { user_id: who.user_id } })).body.role_bindings.find(
      (b) => b.role_name === "Organization Admin",
    )!;
  const integrationFor = async (name: string) => {
    const made = await t.json<{ integration: { id: string } }>("owner", "POST", opPath("createSCIMIntegration", { org_id: org }), { body: { name, identity_provider: "okta" } });
    expect(made.status).toBe(200);
    return made.body.integration.id;
  };
  const tokensOf = (who: DemoUser) => t.gateway.store.db.select().from(scimTokens).where(eq(scimTokens.userId, who.user_id));

  it("the change first (not yet committed): the token is refused once it commits, and none is left", async () => {
    const demoted = await newAdmin("demoted-first@acme.example");
    const integrationId = await integrationFor("IdP of a change first");
    // Their access read (and cached) before: the request passes its checks and reaches its transaction.
    expect((await t.call(demoted, "GET", opPath("listSCIMIntegrations", { org_id: org }))).status).toBe(200);
    const binding = await adminBindingOf(demoted);
    let changing!: () => void;
    const underWay = new Promise<void>((resolve) => (changing = resolve));
    const change = t.gateway.store.db.transaction(async (tx) => {
      expect(await applyBindings(tx as unknown as Database, { userId: demoted.user_id, creates: [], deleteIds: [binding.id] })).toMatchObject({ ok: true });
      changing();
      await new Promise((resolve) => setTimeout(resolve, 400));
    });
    await underWay;
    const token = await t.json<{ message: string }>(demoted, "POST", opPath("createSCIMIntegrationToken", { org_id: org, integration_id: integrationId }), {
      body: { alias: "late", expires_at: new Date(Date.now() + 86_400_000).toISOString() },
    });
    await change;
    expect(token.status).toBe(403);
    expect(token.body.message).toMatch(/scim\.manage/);
    expect(await tokensOf(demoted)).toEqual([]);
  });

  it("the token first (not yet committed): the change waits for it and then deletes it", async () => {
    const demoted = await newAdmin("token-first@acme.example");
    const integrationId = await integrationFor("IdP of a token first");
    const binding = await adminBindingOf(demoted);
    let making!: () => void;
    const underWay = new Promise<void>((resolve) => (making = resolve));
    // What the token's request does in its transaction, held open after the token is stored.
    const made = t.gateway.store.db.transaction(async (tx) => {
      const store = tx as unknown as Database;
      expect(await holdScimIntegration(store, org, integrationId)).toBe(true);
      await holdCallerMembership(store, org, demoted.user_id, "scim.manage");
      await insertScimToken(store, { organizationId: org, integrationId, alias: "early", expiresAt: new Date(Date.now() + 86_400_000), userId: demoted.user_id, secret: "s", secretHash: `race-${demoted.user_id}`, now: new Date() });
      making();
      await new Promise((resolve) => setTimeout(resolve, 400));
    });
    await underWay;
    const change = await t.call("owner", "POST", opPath("applyRoleBindings", { user_id: demoted.user_id }), { body: { bindings_to_create: [], bindings_to_delete: [binding.id] } });
    await made;
    expect(change.status).toBe(200);
    expect(await tokensOf(demoted)).toEqual([]);
  });
});

describe("an active owner always stays", () => {
  it("an owner cannot leave while the only other owner is suspended; once reactivated, they can be removed", async () => {
    const ownersToken = await scimToken(t.demo.owner);
    expect((await setActive(ownersToken, owner2.user_id, false)).status).toBe(200);
    const leave = await t.json<{ message: string }>("owner", "DELETE", opPath("removeOrganizationPerson", { org_id: org, user_id: t.demo.owner.user_id }));
    expect(leave.status).toBe(400);
    expect(leave.body.message).toMatch(/last active owner/);
    expect(await statusOf(t.demo.owner.user_id)).toBe("active");
    expect((await setActive(ownersToken, owner2.user_id, true)).status).toBe(200);
  });

  it("of two owners suspending each other over SCIM at once, one wins and one active owner stays", async () => {
    const ownersToken = await scimToken(t.demo.owner);
    const owner2sToken = await scimToken(owner2);
    const results = await Promise.all([setActive(ownersToken, owner2.user_id, false), setActive(owner2sToken, t.demo.owner.user_id, false)]);
    // The other is refused: 403 where its token was taken before the suspension that deletes it (its maker no
    // longer an active owner), 401 where it was looked up after (PostgreSQL runs the two at once).
    const [won, lost] = results.map((r) => r.status).sort();
    expect(won).toBe(200);
    expect([401, 403]).toContain(lost);
    const statuses = [await statusOf(t.demo.owner.user_id), await statusOf(owner2.user_id)];
    expect(statuses.filter((s) => s === "active")).toHaveLength(1);
    // Whoever stayed brings the other back.
    const winner = results[0]!.status === 200 ? ownersToken : owner2sToken;
    const loser = results[0]!.status === 200 ? owner2.user_id : t.demo.owner.user_id;
    expect((await setActive(winner, loser, true)).status).toBe(200);
  });

  it("a change that must keep an owner holds the owners' rows until it ends: the next such change waits and sees its result", async () => {
    const { db } = t.gateway.store;
    let firstEnded = false;
    let locked!: () => void;
    const firstLocked = new Promise<void>((resolve) => (locked = resolve));
    const first = db.transaction(async (tx) => {
      await lockOwners(tx as unknown as Database, org);
      locked();
      // Held while the second asks (a PostgreSQL server serves both at once; PGlite runs them one after the other).
      await new Promise((resolve) => setTimeout(resolve, 300));
      firstEnded = true;
    });
    await firstLocked;
    const second = db.transaction(async (tx) => {
      const owners = await lockOwners(tx as unknown as Database, org);
      return { sawFirstEnd: firstEnded, owners: owners.map((o) => o.userId).sort() };
    });
    await first;
    expect(await second).toEqual({ sawFirstEnd: true, owners: [t.demo.owner.user_id, owner2.user_id].sort() });
  });
});

describe("single sign-on and owners", () => {
  const addProvider = async (who: DemoUser, domain: string) => {
    const res = await t.json<{ id: string }>(who, "POST", opPath("createSSOProvider", { organization_id: org }), {
      body: { client_id: "c", client_secret: "s", issuer_uri: `https://idp.${domain}`, email_domains: [domain] },
    });
    expect(res.status).toBe(200);
    const [row] = await t.gateway.store.db.select().from(ssoProviders).where(eq(ssoProviders.id, res.body.id));
    return row!;
  };

  it("a provider signs owners in only when an owner added it", async () => {
    expect((await addProvider(admin, "admins-idp.example")).signsInOwners).toBe(false);
    expect((await addProvider(t.demo.owner, "owners-idp.example")).signsInOwners).toBe(true);
  });

  it("a provider that signs owners in no longer does once someone who is no owner changes it: the owners SSO is required of sign in with their key again", async () => {
    const { db } = t.gateway.store;
    const provider = await addProvider(t.demo.owner, "owners-changed-idp.example");
    const path = opPath("updateSSOProvider", { organization_id: org, provider_id: provider.id });
    const signsInOwners = async () => (await db.select().from(ssoProviders).where(eq(ssoProviders.id, provider.id)))[0]!.signsInOwners;
    // An owner's change keeps it.
    expect((await t.call(t.demo.owner, "PATCH", path, { body: { client_secret: "rotated-by-owner" } })).status).toBe(200);
    expect(await signsInOwners()).toBe(true);
    // An admin's (sso.manage, no owner) does not.
    expect((await t.call(admin, "PATCH", path, { body: { client_secret: "rotated-by-admin" } })).status).toBe(200);
    expect(await signsInOwners()).toBe(false);
  });

  it("requiring SSO locks a key out only where a provider can sign the person in: for an owner, one an owner added", async () => {
    const { db } = t.gateway.store;
    // owner2@acme.example: the demo's provider for acme.example was added by the owner.
    await setSsoRequired(db, org, owner2.user_id, true);
    try {
      expect(await ssoRequiredAnywhere(db, owner2.user_id)).toBe(true);
      await db.update(ssoProviders).set({ signsInOwners: false }).where(eq(ssoProviders.organizationId, org));
      expect(await ssoRequiredAnywhere(db, owner2.user_id)).toBe(false);
      // A person who is no owner is held to it by any provider of the organization for their domain.
      await setSsoRequired(db, org, admin.user_id, true);
      expect(await ssoRequiredAnywhere(db, admin.user_id)).toBe(true);
      await db.update(ssoProviders).set({ emailDomains: ["elsewhere.example"] }).where(and(eq(ssoProviders.organizationId, org), eq(ssoProviders.signsInOwners, false)));
      expect(await ssoRequiredAnywhere(db, admin.user_id)).toBe(false);
    } finally {
      await setSsoRequired(db, org, owner2.user_id, false);
      await setSsoRequired(db, org, admin.user_id, false);
    }
  });

  it("requiring SSO locks no key out where the provider's sign-in would refuse the person: suspended there, or a domain two organizations claim", async () => {
    const { db } = t.gateway.store;
    await insertSsoProvider(db, { organizationId: org, clientId: "c", clientSecretCiphertext: null, issuerUri: "https://idp.held.example", emailDomains: ["held.example"], signsInOwners: true });
    const person = await newPerson("someone@held.example", "member");
    await setSsoRequired(db, org, person.user_id, true);
    expect(await ssoRequiredAnywhere(db, person.user_id)).toBe(true);
    // Suspended here (SCIM's active: false): this organization's SSO signs them in no more.
    await db.update(memberships).set({ status: "suspended" }).where(and(eq(memberships.organizationId, org), eq(memberships.userId, person.user_id)));
    expect(await ssoRequiredAnywhere(db, person.user_id)).toBe(false);
    await db.update(memberships).set({ status: "active" }).where(and(eq(memberships.organizationId, org), eq(memberships.userId, person.user_id)));
    expect(await ssoRequiredAnywhere(db, person.user_id)).toBe(true);
    // Another organization's provider claims held.example too (from before such claims were refused): sign-in refuses the domain.
    const [other] = await db.select({ organizationId: memberships.organizationId }).from(memberships).where(eq(memberships.userId, t.demo.outsider.user_id));
    await insertSsoProvider(db, { organizationId: other!.organizationId, clientId: "c", clientSecretCiphertext: null, issuerUri: "https://idp.claims.example", emailDomains: ["held.example"], signsInOwners: true });
    try {
      expect(await ssoRequiredAnywhere(db, person.user_id)).toBe(false);
    } finally {
      await db.delete(ssoProviders).where(eq(ssoProviders.issuerUri, "https://idp.claims.example"));
    }
    expect(await ssoRequiredAnywhere(db, person.user_id)).toBe(true);
  });

  it("requiring SSO locks no key out through a claim to a public e-mail service's domain, from before the gateway refused such claims", async () => {
    const { db } = t.gateway.store;
    const person = await newPerson("someone@gmail.com", "member");
    await insertSsoProvider(db, { organizationId: org, clientId: "c", clientSecretCiphertext: null, issuerUri: "https://idp.public.example", emailDomains: ["gmail.com"], signsInOwners: true });
    await setSsoRequired(db, org, person.user_id, true);
    expect(await ssoRequiredAnywhere(db, person.user_id)).toBe(false);
    // The same claim to a domain of the organization's own holds them to it.
    await db.update(ssoProviders).set({ emailDomains: ["gmail.com", "own.example"] }).where(eq(ssoProviders.issuerUri, "https://idp.public.example"));
    const own = await newPerson("someone@own.example", "member");
    await setSsoRequired(db, org, own.user_id, true);
    expect(await ssoRequiredAnywhere(db, own.user_id)).toBe(true);
  });
});
