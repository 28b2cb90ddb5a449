import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, desc, eq } from "drizzle-orm";
import type { CallerPermissions, ListPeopleResponse, Person } from "@/lib/contract/people";
import { acceptTotpStep, addWebauthnFactor, createPendingTotp, listFactors, recoveryCodesLeft, replaceRecoveryCodes } from "../../store/queries/mfa-factors";
import { touchLastActive } from "../../store/queries/people";
import { auditLog, memberships, users } from "../../store/schema";
import { createTestGateway, opPath, type TestGateway } from "../../testing";

let t: TestGateway;
let org: string;
beforeAll(async () => {
  t = await createTestGateway();
  org = t.demo.organization_id;
});
afterAll(() => t.close());

const people = (who: Parameters<TestGateway["json"]>[0], query: Record<string, string> | Array<[string, string]> = {}) =>
  t.json<ListPeopleResponse>(who, "GET", opPath("listOrganizationPeople", { org_id: org }), { query });

type Roles = { roles: Array<{ id: string; role_name: string; org_id: string }> };
async function roleId(name: string): Promise<string> {
  const { body } = await t.json<Roles>("owner", "GET", opPath("listRoles"));
  return body.roles.find((r) => r.role_name === name && r.org_id === org)!.id;
}

describe("GET /organizations/{org_id}/users", () => {
  it("lists the organization's people by e-mail, with relation, source and status", async () => {
    const { status, body } = await people("owner");
    expect(status).toBe(200);
    expect(body.items.map((p) => p.email)).toEqual(["auditor@acme.example", "member@acme.example", "owner@acme.example"]);
    const owner = body.items.find((p) => p.email === "owner@acme.example")!;
    expect(owner).toMatchObject({ id: t.demo.owner.user_id, name: "Olivia Owner", relation: "owner", status: "active", source: "admin" });
    expect(owner.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(body.next_page_token).toBe("");
    expect(body.prev_page_token).toBe("");
  });

  it("answers under both version prefixes", async () => {
    const res = await t.call("owner", "GET", opPath("listOrganizationPeople", { org_id: org }), { prefix: "/v1alpha5" });
    expect(res.status).toBe(200);
  });

  it("records the caller's last activity, shown to those who read IAM only", async () => {
    await people("member");
    const asOwner = (await people("owner")).body.items.find((p) => p.id === t.demo.member.user_id)!;
    expect(Date.now() - Date.parse(asOwner.last_active_at)).toBeLessThan(60_000);
    const asMember = (await people("member")).body.items.find((p) => p.id === t.demo.member.user_id)!;
    expect(asMember.last_active_at).toBe("");
  });

  it("marks activity only in the organizations a call could act in: active memberships, and a scoped key's own", async () => {
    const { db } = t.gateway.store;
    const userId = t.demo.member.user_id;
    const globex = await t.outsiderOrganizationId();
    await db.insert(memberships).values({ organizationId: globex, userId, relation: "member", source: "invite", status: "suspended" });
    const marks = async () =>
      Object.fromEntries(
        (await db.select({ org: memberships.organizationId, at: memberships.lastActiveAt }).from(memberships).where(eq(memberships.userId, userId))).map((m) => [m.org, m.at?.getTime() ?? null]),
      );
    const clear = () => db.update(memberships).set({ lastActiveAt: null }).where(eq(memberships.userId, userId));
    try {
      await clear();
      const now = new Date();
      // Suspended in Globex: a call there is refused, and is no activity there.
      await touchLastActive(db, userId, undefined, now, now);
      expect(await marks()).toEqual({ [org]: now.getTime(), [globex]: null });
      // Active in both, with a key that acts in Acme alone (an SSO session's): Acme only.
      await db.update(memberships).set({ status: "active" }).where(and(eq(memberships.userId, userId), eq(memberships.organizationId, globex)));
      await clear();
      await touchLastActive(db, userId, org, now, now);
      expect(await marks()).toEqual({ [org]: now.getTime(), [globex]: null });
      await touchLastActive(db, userId, undefined, now, now);
      expect(await marks()).toEqual({ [org]: now.getTime(), [globex]: now.getTime() });
    } finally {
      await db.delete(memberships).where(and(eq(memberships.userId, userId), eq(memberships.organizationId, globex)));
    }
  });

  it("filters by name or e-mail, in any case, and takes LIKE wildcards literally", async () => {
    expect((await people("owner", { q: "MILO" })).body.items.map((p) => p.email)).toEqual(["member@acme.example"]);
    expect((await people("owner", { q: "auditor@" })).body.items.map((p) => p.email)).toEqual(["auditor@acme.example"]);
    expect((await people("owner", { q: "%" })).body.items).toEqual([]);
  });

  it("names people by id (repeated user_id), whatever page they would be on, and only this organization's", async () => {
    const ids = [t.demo.owner.user_id, t.demo.auditor.user_id, t.demo.outsider.user_id, "no-such-person"];
    const { status, body } = await people("member", [...ids.map((id): [string, string] => ["user_id", id]), ["limit", "2"]]);
    expect(status).toBe(200);
    expect(body.items.map((p) => p.email)).toEqual(["auditor@acme.example", "owner@acme.example"]);
    expect(body.next_page_token).toBe("");
    // With the other filters, as any list.
    expect((await people("owner", [["user_id", t.demo.owner.user_id], ["q", "milo"]])).body.items).toEqual([]);
    // Ids asked for, all blank: no one, not everyone.
    for (const blank of [[["user_id", ""]], [["user_id", " "], ["user_id", ""]]] as Array<Array<[string, string]>>) {
      const none = await people("owner", blank);
      expect([none.status, none.body.items]).toEqual([200, []]);
    }
    const many = Array.from({ length: 101 }, (_, i): [string, string] => ["user_id", `u-${i}`]);
    const refused = await people("owner", many);
    expect(refused.status).toBe(400);
    expect((refused.body as unknown as { message: string }).message).toContain("user_id: must hold at most 100 values");
  });

  it("filters by status", async () => {
    expect((await people("owner", { status: "suspended" })).body.items).toEqual([]);
    expect((await people("owner", { status: "active" })).body.items).toHaveLength(3);
  });

  it("pages forward and back with signed tokens", async () => {
    const first = await people("owner", { limit: "2" });
    expect(first.body.items.map((p) => p.email)).toEqual(["auditor@acme.example", "member@acme.example"]);
    expect(first.body.prev_page_token).toBe("");
    const second = await people("owner", { limit: "2", next_token: first.body.next_page_token });
    expect(second.body.items.map((p) => p.email)).toEqual(["owner@acme.example"]);
    expect(second.body.next_page_token).toBe("");
    const back = await people("owner", { limit: "2", prev_token: second.body.prev_page_token });
    expect(back.body.items.map((p) => p.email)).toEqual(["auditor@acme.example", "member@acme.example"]);
    // A token is bound to its direction and cannot be edited.
    expect((await people("owner", { prev_token: first.body.next_page_token })).status).toBe(400);
    const tampered = await people("owner", { next_token: `x${first.body.next_page_token}` });
    expect(tampered.status).toBe(400);
    expect((tampered.body as unknown as { message: string }).message).toContain("query.next_token");
  });

  it("answers a page past the last match as empty, with its way back, whatever the filter left", async () => {
    const first = await people("owner", { limit: "1" });
    expect(first.body.items.map((p) => p.email)).toEqual(["auditor@acme.example"]);
    // Nobody past the token matches: an empty page, and a way back to the page before.
    const past = await people("owner", { limit: "1", q: "auditor", next_token: first.body.next_page_token });
    expect(past.status).toBe(200);
    expect(past.body.items).toEqual([]);
    expect(past.body.next_page_token).toBe("");
    const back = await people("owner", { limit: "1", q: "auditor", prev_token: past.body.prev_page_token });
    expect(back.status).toBe(200);
    expect(back.body.items.map((p) => p.email)).toEqual(["auditor@acme.example"]);
  });

  it("refuses bad filters with a 400 naming the field", async () => {
    const bad = await people("owner", { status: "gone" });
    expect(bad.status).toBe(400);
    expect((bad.body as unknown as { message: string }).message).toContain("status");
    expect((await people("owner", { limit: "0" })).status).toBe(400);
  });

  it("is open to members, closed to outsiders", async () => {
    expect((await people("member")).status).toBe(200);
    expect((await people("auditor")).status).toBe(200);
    expect((await people("outsider")).status).toBe(403);
  });
});

describe("POST and DELETE /organizations/{org_id}/users", () => {
  it("invites a new person with the baseline role and the given roles, atomically, and audits it", async () => {
    const billing = await roleId("Billing Viewer");
    const { status, body } = await t.json<Person>("owner", "POST", opPath("inviteOrganizationPerson", { org_id: org }), {
      body: { email: "New.Person@Acme.example", name: "Nia New", role_ids: [billing] },
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({ email: "new.person@acme.example", name: "Nia New", relation: "member", source: "invite", status: "active" });
    const bindings = await t.json<{ role_bindings: Array<{ role_name: string; scope_type: string }> }>("owner", "GET", opPath("listRoleBindings"), {
      query: { user_id: body.id },
    });
    expect(bindings.body.role_bindings.map((b) => b.role_name).sort()).toEqual(["Billing Viewer", "Organization Member"]);
    const audit = await t.json<{ items: Array<{ action_detail: string; target_ids: string[]; result: string }> }>("owner", "GET", opPath("getAuditLogs", { organization_id: org }), {
      query: { target_ids: body.id },
    });
    expect(audit.body.items.map((e) => [e.action_detail, e.result])).toContainEqual(["Invite Person", "OK"]);
  });

  it("answers 409 for someone already a person of the organization", async () => {
    const res = await t.call("owner", "POST", opPath("inviteOrganizationPerson", { org_id: org }), { body: { email: "MEMBER@acme.example" } });
    expect(res.status).toBe(409);
  });

  it("answers 409 for an address that is another person's SCIM userName, of an existing account or a new one", async () => {
    const named = and(eq(memberships.userId, t.demo.member.user_id), eq(memberships.organizationId, org));
    const emails = async () => (await people("owner")).body.items.map((p) => p.email);
    try {
      for (const taken of ["Directory.Name@acme.example", "outsider@globex.example"]) {
        // The identity provider names the demo member by this address, which is not their account's.
        await t.gateway.store.db.update(memberships).set({ scimUserName: taken }).where(named);
        const before = await emails();
        const { status, body } = await t.json<{ message: string }>("owner", "POST", opPath("inviteOrganizationPerson", { org_id: org }), { body: { email: taken.toUpperCase() } });
        expect(status).toBe(409);
        expect(body.message).toBe(`${taken.toLowerCase()} is the SCIM userName of another person of this organization`);
        expect(await emails()).toEqual(before);
      }
      expect(await t.gateway.store.db.select().from(users).where(eq(users.email, "directory.name@acme.example"))).toEqual([]);
    } finally {
      await t.gateway.store.db.update(memberships).set({ scimUserName: null }).where(named);
    }
  });

  it("adds an account of another organization without making a new one", async () => {
    const { status, body } = await t.json<Person>("owner", "POST", opPath("inviteOrganizationPerson", { org_id: org }), { body: { email: "outsider@globex.example" } });
    expect(status).toBe(201);
    expect(body.id).toBe(t.demo.outsider.user_id);
    expect(body.name).toBe("Oscar Outsider");
    // Removing them here leaves their own organization alone.
    expect((await t.call("owner", "DELETE", opPath("removeOrganizationPerson", { org_id: org, user_id: body.id }))).status).toBe(204);
    expect((await t.call("outsider", "GET", opPath("getOrganizations"))).status).toBe(200);
    const own = await t.json<{ items: Array<{ id: string }> }>("outsider", "GET", opPath("getOrganizations"));
    expect(own.body.items).toHaveLength(1);
  });

  it("refuses bad input with a 400 naming the field, and changes nothing", async () => {
    const cases: Array<[unknown, string]> = [
      [{}, "email"],
      [{ email: "not-an-address" }, "email"],
      [{ email: "x@acme.example", name: "bad\u202ename" }, "name"],
      [{ email: "x@acme.example", role_ids: ["no-such-role"] }, "role_ids[0]"],
      [{ email: "x@acme.example", role_ids: "r" }, "role_ids"],
    ];
    for (const [body, field] of cases) {
      const res = await t.json<{ message: string }>("owner", "POST", opPath("inviteOrganizationPerson", { org_id: org }), { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toContain(field);
    }
    // A role that cannot be granted organization-wide.
    const projectMember = await roleId("Project Member");
    const scoped = await t.json<{ message: string }>("owner", "POST", opPath("inviteOrganizationPerson", { org_id: org }), { body: { email: "x@acme.example", role_ids: [projectMember] } });
    expect(scoped.status).toBe(400);
    expect(scoped.body.message).toContain("body.role_ids[0]");
    expect((await people("owner", { q: "x@acme" })).body.items).toEqual([]);
  });

  it("needs iam.write: the member and the auditor are refused", async () => {
    for (const who of ["member", "auditor", "outsider"] as const) {
      expect((await t.call(who, "POST", opPath("inviteOrganizationPerson", { org_id: org }), { body: { email: "y@acme.example" } })).status).toBe(403);
      expect((await t.call(who, "DELETE", opPath("removeOrganizationPerson", { org_id: org, user_id: t.demo.member.user_id }))).status).toBe(403);
    }
  });

  it("removes a person with their bindings in the organization; the account stays", async () => {
    const invited = await t.json<Person>("owner", "POST", opPath("inviteOrganizationPerson", { org_id: org }), { body: { email: "leaver@acme.example", role_ids: [await roleId("Auditor")] } });
    expect((await t.call("owner", "DELETE", opPath("removeOrganizationPerson", { org_id: org, user_id: invited.body.id }))).status).toBe(204);
    expect((await people("owner", { q: "leaver" })).body.items).toEqual([]);
    const bindings = await t.call("owner", "GET", opPath("listRoleBindings"), { query: { user_id: invited.body.id } });
    expect(bindings.status).toBe(404);
    // Invited again, they come back with the baseline role only: nothing of before was left behind.
    const again = await t.json<Person>("owner", "POST", opPath("inviteOrganizationPerson", { org_id: org }), { body: { email: "leaver@acme.example" } });
    expect(again.body.id).toBe(invited.body.id);
    const now = await t.json<{ role_bindings: Array<{ role_name: string }> }>("owner", "GET", opPath("listRoleBindings"), { query: { user_id: again.body.id } });
    expect(now.body.role_bindings.map((b) => b.role_name)).toEqual(["Organization Member"]);
    expect((await t.call("owner", "DELETE", opPath("removeOrganizationPerson", { org_id: org, user_id: invited.body.id }))).status).toBe(204);
    expect((await t.call("owner", "DELETE", opPath("removeOrganizationPerson", { org_id: org, user_id: invited.body.id }))).status).toBe(404);
  });

  it("never removes the last owner", async () => {
    const res = await t.json<{ message: string }>("owner", "DELETE", opPath("removeOrganizationPerson", { org_id: org, user_id: t.demo.owner.user_id }));
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/last active owner/);
    expect((await people("owner", { q: "owner@" })).body.items).toHaveLength(1);
  });
});

describe("PATCH /organizations/{org_id}/users/{user_id}", () => {
  const path = (userId: string) => opPath("updateOrganizationPerson", { org_id: org, user_id: userId });

  it("requires SSO sign-in of a person and lifts it, shown in the list and audited", async () => {
    const on = await t.json<Person>("owner", "PATCH", path(t.demo.member.user_id), { body: { sso_required: true } });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ id: t.demo.member.user_id, sso_required: true });
    expect((await people("owner", { q: "member@" })).body.items[0]?.sso_required).toBe(true);
    const [entry] = await t.gateway.store.db.select().from(auditLog).where(eq(auditLog.organizationId, org)).orderBy(desc(auditLog.seq)).limit(1);
    expect(entry).toMatchObject({ actionDetail: "Require SSO sign-in", targetIds: [t.demo.member.user_id], targetNames: [t.demo.member.email], result: "OK" });
    const off = await t.json<Person>("owner", "PATCH", path(t.demo.member.user_id), { body: { sso_required: false } });
    expect(off.body.sso_required).toBe(false);
  });

  it("refuses bad input with a 400 naming the field, strangers with a 404, and callers without iam.write with a 403", async () => {
    const bad = await t.json<{ message: string }>("owner", "PATCH", path(t.demo.member.user_id), { body: { sso_required: "yes" } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/sso_required/);
    expect((await t.call("owner", "PATCH", path(t.demo.outsider.user_id), { body: { sso_required: true } })).status).toBe(404);
    for (const who of ["member", "auditor"] as const) {
      expect((await t.call(who, "PATCH", path(t.demo.member.user_id), { body: { sso_required: true } })).status).toBe(403);
    }
    expect((await people("owner", { q: "member@" })).body.items[0]?.sso_required).toBe(false);
  });
});

describe("DELETE /organizations/{org_id}/users/{user_id}/mfa", () => {
  const path = (userId: string) => opPath("resetOrganizationPersonMfa", { org_id: org, user_id: userId });
  const db = () => t.gateway.store.db;

  async function enrol(userId: string) {
    const pending = await createPendingTotp(db(), userId, "sealed-secret", "Authenticator app");
    expect(await acceptTotpStep(db(), pending, 1_000)).toBe(true);
    await addWebauthnFactor(db(), { userId, name: "Security key", credentialId: `cred-${userId}`, publicKey: "pk", signCount: 0, transports: ["usb"] });
    await replaceRecoveryCodes(db(), userId, ["h1", "h2"]);
  }

  it("lists each person's enrolled methods, and a reset removes every factor and recovery code, audited", async () => {
    const userId = t.demo.member.user_id;
    await enrol(userId);
    // A factor still pending confirmation is not an enrolled method.
    await createPendingTotp(db(), t.demo.auditor.user_id, "sealed", "Authenticator app");
    const listed = (await people("owner")).body.items;
    expect(listed.find((p) => p.id === userId)?.mfa_methods).toEqual(["totp", "webauthn"]);
    expect(listed.find((p) => p.id === t.demo.auditor.user_id)?.mfa_methods).toEqual([]);

    const res = await t.json<Person>("owner", "DELETE", path(userId));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: userId, mfa_methods: [] });
    expect(await listFactors(db(), userId)).toEqual([]);
    expect(await recoveryCodesLeft(db(), userId)).toBe(0);
    expect((await people("owner", { q: "member@" })).body.items[0]?.mfa_methods).toEqual([]);
    const [entry] = await db().select().from(auditLog).where(eq(auditLog.organizationId, org)).orderBy(desc(auditLog.seq)).limit(1);
    expect(entry).toMatchObject({ action: "Delete", actionDetail: "Reset MFA", targetIds: [userId], targetNames: [t.demo.member.email], result: "OK" });
  });

  it("refuses strangers with a 404 and callers without mfa.manage with a 403, resetting nothing", async () => {
    const userId = t.demo.member.user_id;
    await enrol(userId);
    expect((await t.call("owner", "DELETE", path(t.demo.outsider.user_id))).status).toBe(404);
    for (const who of ["member", "auditor"] as const) expect((await t.call(who, "DELETE", path(userId))).status).toBe(403);
    expect((await listFactors(db(), userId)).map((f) => f.method)).toEqual(["totp", "webauthn"]);
    expect(await recoveryCodesLeft(db(), userId)).toBe(2);
    await t.call("owner", "DELETE", path(userId));
  });
});

describe("a person of two organizations", () => {
  const db = () => t.gateway.store.db;

  it("leaves their second factors and key sign-in to the account's home, the first organization that had it", async () => {
    // Two organizations invite the same address, Acme first: one account, two memberships, Acme its home.
    const globex = await t.outsiderOrganizationId();
    const invite = (who: "owner" | "outsider", orgId: string) =>
      t.json<Person>(who, "POST", opPath("inviteOrganizationPerson", { org_id: orgId }), { body: { email: "shared@two-orgs.example" } });
    const inAcme = await invite("owner", org);
    const inGlobex = await invite("outsider", globex);
    expect([inAcme.status, inGlobex.status]).toEqual([201, 201]);
    const userId = inAcme.body.id;
    expect(inGlobex.body.id).toBe(userId);
    // Made older than Acme's: the home is who had the account first, not whose membership is oldest.
    await db().update(memberships).set({ createdAt: new Date("2020-01-01T00:00:00Z") }).where(and(eq(memberships.userId, userId), eq(memberships.organizationId, globex)));
    const enrol = async () => {
      const pending = await createPendingTotp(db(), userId, "sealed-secret", "Authenticator app");
      expect(await acceptTotpStep(db(), pending, 1_000)).toBe(true);
      await replaceRecoveryCodes(db(), userId, ["h1"]);
    };
    await enrol();

    const reset = (who: "owner" | "outsider", orgId: string) =>
      t.json<{ message: string }>(who, "DELETE", opPath("resetOrganizationPersonMfa", { org_id: orgId, user_id: userId }));
    const requireSso = (who: "owner" | "outsider", orgId: string, on: boolean) =>
      t.json<Person & { message: string }>(who, "PATCH", opPath("updateOrganizationPerson", { org_id: orgId, user_id: userId }), { body: { sso_required: on } });

    // Globex, which added the account later, holds mfa.manage and iam.write in Globex only: refused.
    const refused = await reset("outsider", globex);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(`Resetting second factors applies to every organization of user ${userId}, and the account's home organization decides: you do not hold mfa.manage there`);
    expect((await requireSso("outsider", globex, true)).status).toBe(403);
    expect((await listFactors(db(), userId)).map((f) => f.method)).toEqual(["totp"]);
    expect(await recoveryCodesLeft(db(), userId)).toBe(1);
    const [entry] = await db().select().from(auditLog).where(eq(auditLog.organizationId, globex)).orderBy(desc(auditLog.seq)).limit(1);
    expect(entry).toMatchObject({ actionDetail: "Require SSO sign-in", targetIds: [userId], result: "PERMISSION_DENIED" });
    // Lifting the requirement is each organization's own business.
    const lifted = await requireSso("outsider", globex, false);
    expect([lifted.status, lifted.body.sso_required]).toEqual([200, false]);

    // Acme, the home, decides alone: Globex having the account too takes nothing from it.
    expect((await reset("owner", org)).status).toBe(200);
    expect(await listFactors(db(), userId)).toEqual([]);
    expect((await requireSso("owner", org, true)).body.sso_required).toBe(true);
    expect((await requireSso("owner", org, false)).body.sso_required).toBe(false);

    // While Acme has let the person go, Globex, the only organization left, decides.
    await enrol();
    expect((await t.call("owner", "DELETE", opPath("removeOrganizationPerson", { org_id: org, user_id: userId }))).status).toBe(204);
    expect((await reset("outsider", globex)).status).toBe(200);
    expect(await listFactors(db(), userId)).toEqual([]);

    // Back in Acme, the person's home is Acme again: Globex's say ends, it does not move to Globex.
    expect((await invite("owner", org)).status).toBe(201);
    await enrol();
    expect((await reset("outsider", globex)).status).toBe(403);
    expect((await reset("owner", org)).status).toBe(200);
    for (const [who, orgId] of [["owner", org], ["outsider", globex]] as const) {
      expect((await t.call(who, "DELETE", opPath("removeOrganizationPerson", { org_id: orgId, user_id: userId }))).status).toBe(204);
    }
  });

  it("takes the account's name from where the account decides, not from an organization that adds it later", async () => {
    const globex = await t.outsiderOrganizationId();
    const invite = (who: "owner" | "outsider", orgId: string, name?: string) =>
      t.json<Person>(who, "POST", opPath("inviteOrganizationPerson", { org_id: orgId }), { body: { email: "unnamed@two-orgs.example", ...(name ? { name } : {}) } });
    const nameIn = async (who: "owner" | "outsider", orgId: string, userId: string) =>
      (await t.json<{ items: Person[] }>(who, "GET", opPath("listOrganizationPeople", { org_id: orgId }), { query: { q: "unnamed@" } })).body.items.find((p) => p.id === userId)?.name;

    // Acme makes the account without a name; Globex, adding it later with one, does not name it for Acme.
    const inAcme = await invite("owner", org);
    expect(inAcme.status).toBe(201);
    const userId = inAcme.body.id;
    expect((await invite("outsider", globex, "Named By Globex")).status).toBe(201);
    expect(await nameIn("owner", org, userId)).toBe("");
    expect(await nameIn("outsider", globex, userId)).toBe("");

    // Once Acme has let the person go, Globex is the only organization left and decides: re-added, its name fills the empty one.
    expect((await t.call("outsider", "DELETE", opPath("removeOrganizationPerson", { org_id: globex, user_id: userId }))).status).toBe(204);
    expect((await t.call("owner", "DELETE", opPath("removeOrganizationPerson", { org_id: org, user_id: userId }))).status).toBe(204);
    expect((await invite("outsider", globex, "Named By Globex")).status).toBe(201);
    expect(await nameIn("outsider", globex, userId)).toBe("Named By Globex");
    expect((await t.call("outsider", "DELETE", opPath("removeOrganizationPerson", { org_id: globex, user_id: userId }))).status).toBe(204);
  });
});

describe("GET /organizations/{org_id}/permissions", () => {
  const perms = (who: Parameters<TestGateway["json"]>[0], query: Record<string, string> = {}) =>
    t.json<CallerPermissions>(who, "GET", opPath("getCallerPermissions", { org_id: org }), { query });

  it("gives owners everything and the member nothing organization-wide", async () => {
    expect((await perms("owner")).body.permissions).toHaveLength(13);
    expect((await perms("member")).body).toMatchObject({ relation: "member", permissions: [] });
    expect((await perms("auditor")).body.permissions.sort()).toEqual(["audit.read", "billing.read", "iam.read"]);
    expect((await perms("outsider")).status).toBe(403);
  });

  it("answers what a project-scoped role grants on that project only", async () => {
    const projects = await t.json<{ items: Array<{ id: string; name: string }> }>("owner", "GET", opPath("listProjects"), { query: { org_id: org } });
    const admin = projects.body.items.find((p) => p.name === "llm-training")!;
    const user = projects.body.items.find((p) => p.name === "inference-prod")!;
    const other = projects.body.items.find((p) => p.name === "staging")!;
    expect((await perms("member", { project_id: admin.id })).body.permissions).toEqual(["projects.read", "projects.update", "projects.delete"]);
    expect((await perms("member", { project_id: user.id })).body.permissions).toEqual(["projects.read"]);
    // A project the member cannot see is not found, as everywhere else.
    expect((await perms("member", { project_id: other.id })).status).toBe(404);
    expect((await perms("auditor", { project_id: other.id })).status).toBe(404);
    expect((await perms("member", { project_id: "no-such-project" })).status).toBe(404);
    // Without a project: each bound project's permissions at once.
    expect((await perms("member")).body.projects).toEqual({
      [admin.id]: ["projects.read", "projects.update", "projects.delete"],
      [user.id]: ["projects.read"],
      [projects.body.items.find((p) => p.name === "research-sandbox")!.id]: ["projects.read"],
    });
  });
});
