import { setMfaMethods } from "../../store/queries/mfa";
import { acceptTotpStep, addWebauthnFactor, createPendingTotp, listFactors, recordWebauthnUse, resetPersonMfa } from "../../store/queries/mfa-factors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestGateway, opPath, type TestGateway } from "../../testing";

let t: TestGateway;
let path: string;
beforeAll(async () => {
  t = await createTestGateway();
  // The demo requires no MFA (the console would ask its people for a second factor): these tests start from TOTP required.
  await setMfaMethods(t.gateway.store.db, t.demo.organization_id, ["totp"], new Date(Date.now() - 90 * 86_400_000));
  path = opPath("OrganizationsMFAService_GetOrganizationMFA", { organization_id: t.demo.organization_id });
});
afterAll(() => t.close());

interface Mfa {
  method: "totp" | "webauthn";
  created_at: string;
}
interface ErrorBody {
  code: string;
  message: string;
  reason: string;
}
type Who = "owner" | "member" | "outsider";

const get = (who: Who = "owner") => t.opJson<{ mfa_methods: Mfa[] } & ErrorBody>(who, "OrganizationsMFAService_GetOrganizationMFA", { params: { organization_id: t.demo.organization_id } });
const patch = (body: unknown, who: Who = "owner") => t.opJson<{ mfa_methods: Mfa[] } & ErrorBody>(who, "OrganizationsMFAService_UpdateOrganizationMFA", { params: { organization_id: t.demo.organization_id }, body });

describe("GET /organizations/{organization_id}/mfa", () => {
  it("shows the requirement to the owner and a member", async () => {
    for (const who of ["owner", "member"] as const) {
      const res = await get(who);
      expect(res.status).toBe(200);
      expect(res.body.mfa_methods).toEqual([{ method: "totp", created_at: expect.stringMatching(/Z$/) }]);
    }
  });

  it("refuses an outsider with 403 and answers 401 unsigned", async () => {
    const res = await get("outsider");
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "403", reason: "permission_denied" });
    expect((await t.gateway.app.request(`http://gateway.test/v1${path}`)).status).toBe(401);
  });
});

describe("PATCH /organizations/{organization_id}/mfa", () => {
  it("sets the required methods: kept ones keep created_at, new ones get now, duplicates collapse", async () => {
    const [totp] = (await get()).body.mfa_methods;
    const started = Date.now();
    const { result: res, entries } = await t.audited(() => patch({ intended_methods: ["webauthn", "totp", "webauthn"] }));
    expect(res.status).toBe(200);
    expect(res.body.mfa_methods.map((m) => m.method).sort()).toEqual(["totp", "webauthn"]);
    const byMethod = new Map(res.body.mfa_methods.map((m) => [m.method, m]));
    expect(byMethod.get("totp")!.created_at).toBe(totp!.created_at);
    expect(Date.parse(byMethod.get("webauthn")!.created_at)).toBeGreaterThanOrEqual(started - 1000);
    expect((await get()).body).toEqual(res.body);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ organizationId: t.demo.organization_id, action: "Update", result: "OK", targetType: "OrganizationMFA", targetIds: [t.demo.organization_id], targetNames: ["webauthn", "totp"] });
  });

  it("drops methods that are no longer listed, and an empty list requires none", async () => {
    const webauthn = (await get()).body.mfa_methods.find((m) => m.method === "webauthn")!;
    const res = await patch({ intended_methods: ["webauthn"] });
    expect(res.body.mfa_methods).toEqual([webauthn]);
    const none = await patch({ intended_methods: [] });
    expect(none.status).toBe(200);
    expect(none.body.mfa_methods).toEqual([]);
    expect((await get()).body.mfa_methods).toEqual([]);
  });

  it("shows the required methods in the organization entity", async () => {
    await patch({ intended_methods: ["totp"] });
    const entities = await t.opJson<{ items: Array<{ id: string; mfa_methods?: Mfa[] }> }>("owner", "getOrganizations");
    const entity = entities.body.items.find((o) => o.id === t.demo.organization_id)!;
    expect(entity.mfa_methods).toEqual((await get()).body.mfa_methods);
    expect(entity.mfa_methods?.map((m) => m.method)).toEqual(["totp"]);
    const put = await t.opJson<{ entity: { mfa_methods?: Mfa[] } }>("owner", "updateOrganization", {
      query: { org_id: t.demo.organization_id },
      body: { company_name: "Acme AI Labs, Inc." },
    });
    expect(put.body.entity.mfa_methods).toEqual(entity.mfa_methods);
  });

  it.each([
    ["an unknown method", { intended_methods: ["totp", "sms"] }, "body.intended_methods[1]: must be one of totp, webauthn"],
    ["a method of the wrong type", { intended_methods: [1] }, "body.intended_methods[0]"],
    ["a string instead of a list", { intended_methods: "totp" }, "body.intended_methods: must be an array"],
    ["a null body", null, "body"],
  ])("answers 400 for %s and changes nothing", async (_name, body, message) => {
    const before = (await get()).body;
    const { result: res, entries } = await t.audited(() => patch(body));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "400", reason: "bad_request" });
    expect(res.body.message).toContain(message);
    expect((await get()).body).toEqual(before);
    expect(entries.map((e) => e.result)).toEqual(["INVALID_ARGUMENT"]);
  });

  it.each(["member", "outsider"] as const)("refuses the %s with 403, audited, and changes nothing", async (who) => {
    const before = (await get()).body;
    const { result: res, entries } = await t.audited(() => patch({ intended_methods: [] }, who));
    expect(res.status).toBe(403);
    expect(entries.map((e) => [e.result, e.organizationId, e.actorId])).toEqual([["PERMISSION_DENIED", t.demo.organization_id, t.demo[who].user_id]]);
    expect((await get()).body).toEqual(before);
  });

  it("sets the enrolment grace period, and refuses one out of range naming the field", async () => {
    const res = await patch({ intended_methods: ["totp"], enrollment_grace_days: 7 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ enrollment_grace_days: 7 });
    // Left out, the grace period stays as it was.
    expect((await patch({ intended_methods: ["totp", "webauthn"] })).body).toMatchObject({ enrollment_grace_days: 7 });
    for (const [days, message] of [
      [-1, "body.enrollment_grace_days: must be 0 or more"],
      [91, "body.enrollment_grace_days: must be at most 90"],
      [1.5, "body.enrollment_grace_days: must be a whole number of days"],
    ] as const) {
      const bad = await patch({ intended_methods: [], enrollment_grace_days: days });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toContain(message);
    }
    expect((await get()).body).toMatchObject({ enrollment_grace_days: 7 });
    await patch({ intended_methods: [], enrollment_grace_days: 0 });
  });

  it("counts the active people who enrolled each method, before any is required", async () => {
    const db = t.gateway.store.db;
    const before = (await get()).body as unknown as { enrollment: Record<string, number> };
    expect(before.enrollment).toEqual({ people: 3, totp: 0, webauthn: 0, any: 0 });
    const pending = await createPendingTotp(db, t.demo.member.user_id, "sealed", "Authenticator app");
    // Pending: not enrolled yet.
    expect(((await get()).body as unknown as typeof before).enrollment.any).toBe(0);
    await acceptTotpStep(db, pending, 7);
    await addWebauthnFactor(db, { userId: t.demo.owner.user_id, name: "Key", credentialId: "c-1", publicKey: "pk", signCount: 0, transports: [] });
    await addWebauthnFactor(db, { userId: t.demo.member.user_id, name: "Key", credentialId: "c-2", publicKey: "pk", signCount: 0, transports: [] });
    // The outsider is of another organization: not counted here.
    await addWebauthnFactor(db, { userId: t.demo.outsider.user_id, name: "Key", credentialId: "c-3", publicKey: "pk", signCount: 0, transports: [] });
    expect(((await get()).body as unknown as typeof before).enrollment).toEqual({ people: 3, totp: 1, webauthn: 2, any: 2 });
    for (const who of ["owner", "member", "outsider"] as const) await resetPersonMfa(db, t.demo[who].user_id);
  });

  it("answers a status it does not declare (413) with the error status object", async () => {
    const res = await t.opJson<{ code: number; message: string; details: unknown[] }>("owner", "OrganizationsMFAService_UpdateOrganizationMFA", { params: { organization_id: t.demo.organization_id },
      rawBody: JSON.stringify({ intended_methods: ["totp"], pad: "x".repeat(2 * 1024 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: expect.any(Number), message: expect.any(String), details: [] });
  });

  it("ends concurrent updates in one of the requested sets", async () => {
    const sets = [["totp"], ["webauthn"], ["totp", "webauthn"], []];
    const results = await Promise.all(sets.map((intended_methods) => patch({ intended_methods })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const final = (await get()).body.mfa_methods.map((m) => m.method).sort();
    expect(sets.map((s) => [...s].sort())).toContainEqual(final);
  });
});

describe("a passkey's signature counter", () => {
  it("never goes back: of two answers checked at once, the one with the lower count is not taken once the higher is recorded", async () => {
    const db = t.gateway.store.db;
    const key = await addWebauthnFactor(db, { userId: t.demo.member.user_id, name: "Key", credentialId: "c-count", publicKey: "pk", signCount: 5, transports: [] });
    try {
      expect(await recordWebauthnUse(db, key.id, 7)).toBe(true);
      expect(await recordWebauthnUse(db, key.id, 6)).toBe(false);
      expect(await recordWebauthnUse(db, key.id, 7)).toBe(false);
      expect((await listFactors(db, t.demo.member.user_id)).find((f) => f.id === key.id)?.signCount).toBe(7);
      // An authenticator that keeps no counter says 0 every time, and is taken every time.
      const counterless = await addWebauthnFactor(db, { userId: t.demo.member.user_id, name: "Synced", credentialId: "c-zero", publicKey: "pk", signCount: 0, transports: [] });
      expect(await recordWebauthnUse(db, counterless.id, 0)).toBe(true);
      expect(await recordWebauthnUse(db, counterless.id, 0)).toBe(true);
    } finally {
      await resetPersonMfa(db, t.demo.member.user_id);
    }
  });
});
