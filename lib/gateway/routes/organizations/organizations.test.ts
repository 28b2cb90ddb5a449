import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { featureFlagRules, memberships, organizations } from "../../store/schema";
import { createTestGateway, type TestGateway } from "../../testing";

/** A fresh store with the whole demo seeded; slow on a busy machine. */
const SETUP_MS = 180_000;

let t: TestGateway;
beforeAll(async () => {
  t = await createTestGateway();
}, SETUP_MS);
afterAll(() => t.close());

interface Entity {
  id: string;
  name: string;
  relation: string;
  billing: { balance: string; has_valid_payment_method: boolean; delinquent: boolean };
  features: Record<string, unknown>;
  state: string;
  state_reason: string;
  company_name?: string;
  billing_addr?: Record<string, string>;
  tax_id?: string;
  tax_id_type?: string;
}
interface ErrorBody {
  code: string;
  message: string;
  error_id: string;
  reason: string;
}

const ADDRESS = { address_line1: "1 Main Street", city: "Denver", state_or_region: "Colorado", postal_code: "80202", country: "us" };

const entities = (who: "owner" | "member" | "outsider") => t.opJson<{ items: Entity[] }>(who, "getOrganizations");
const put = (who: "owner" | "member" | "outsider", body: unknown, orgId: string | null = t.demo.organization_id) =>
  t.opJson<{ entity: Entity } & ErrorBody>(who, "updateOrganization", { query: orgId === null ? {} : { org_id: orgId }, body });

describe("GET /organizations/entities", () => {
  it("shows the owner the demo organization with every required Entity field", async () => {
    const res = await entities("owner");
    expect(res.status).toBe(200);
    const org = res.body.items.find((o) => o.id === t.demo.organization_id);
    expect(org).toBeDefined();
    expect(org).toMatchObject({
      id: t.demo.organization_id,
      name: "Acme AI Labs",
      relation: "owner",
      billing: { balance: expect.stringMatching(/^-?\$[\d,]+\.\d{2}$/), has_valid_payment_method: expect.any(Boolean), delinquent: expect.any(Boolean) },
      features: expect.any(Object),
      state: "active",
      state_reason: expect.any(String),
    });
    expect(org!.features.reservations).toBe(true);
    expect(res.body.items).toHaveLength(1);
  });

  it("shows the member the same organization as a member, without the reservations feature", async () => {
    const res = await entities("member");
    expect(res.status).toBe(200);
    expect(res.body.items.map((o) => [o.id, o.relation])).toEqual([[t.demo.organization_id, "member"]]);
    expect(res.body.items[0]!.features.reservations).toBe(false);
  });

  it("does not show the demo organization to an outsider", async () => {
    const res = await entities("outsider");
    expect(res.status).toBe(200);
    expect(res.body.items.map((o) => o.id)).not.toContain(t.demo.organization_id);
    expect(res.body.items.map((o) => [o.name, o.relation])).toEqual([["Globex Research", "owner"]]);
  });

  it("answers 401 to an unsigned request", async () => {
    const res = await t.gateway.app.request("http://gateway.test/v1/organizations/entities");
    expect(res.status).toBe(401);
  });

  it("is kept per caller until the store changes: a flag given to the member shows at once, to the member only", async () => {
    const reservations = async (who: "owner" | "member") => (await entities(who)).body.items.find((o) => o.id === t.demo.organization_id)?.features.reservations;
    // Read twice: the second answer is the kept one.
    expect([await reservations("member"), await reservations("member"), await reservations("owner")]).toEqual([false, false, true]);
    const rule = { id: "entities-cache-rule", flagKey: "reservations", targetType: "user", targetId: t.demo.member.user_id, value: true, priority: 100 };
    await t.gateway.store.db.insert(featureFlagRules).values(rule);
    try {
      expect([await reservations("member"), await reservations("owner")]).toEqual([true, true]);
    } finally {
      await t.gateway.store.db.delete(featureFlagRules).where(eq(featureFlagRules.id, rule.id));
    }
    expect(await reservations("member")).toBe(false);
  });
});

describe("PUT /organizations/entities", () => {
  it("lets the owner update every field, and the change persists", async () => {
    const body = {
      organization_name: "Acme AI Labs (renamed)",
      company_name: "Acme AI Labs, Ltd.",
      billing_addr: ADDRESS,
      tax_id: "51-2144346",
      tax_id_type: "EIN",
    };
    const { result: res, entries } = await t.audited(() => put("owner", body));
    expect(res.status).toBe(200);
    expect(res.body.entity).toMatchObject({
      id: t.demo.organization_id,
      name: body.organization_name,
      relation: "owner",
      company_name: body.company_name,
      billing_addr: { ...ADDRESS, country: "US" },
      tax_id: body.tax_id,
      tax_id_type: "EIN",
      state: "active",
    });
    expect(res.body.entity.features.reservations).toBe(true);

    const again = (await entities("owner")).body.items.find((o) => o.id === t.demo.organization_id);
    expect(again).toMatchObject({ name: body.organization_name, company_name: body.company_name, tax_id: body.tax_id, tax_id_type: "EIN" });
    const [row] = await t.gateway.store.db.select().from(organizations).where(eq(organizations.id, t.demo.organization_id));
    expect(row?.billingAddress).toEqual({ ...ADDRESS, country: "US" });

    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      organizationId: t.demo.organization_id,
      action: "Update",
      actorId: t.demo.owner.user_id,
      actorEmail: t.demo.owner.email,
      result: "OK",
      targetIds: [t.demo.organization_id],
      targetNames: [body.organization_name],
      targetType: "Organization",
    });
  });

  it("changes only the fields sent", async () => {
    const before = (await entities("owner")).body.items[0]!;
    const res = await put("owner", { tax_id: "DE123456789", tax_id_type: "VAT" });
    expect(res.status).toBe(200);
    expect(res.body.entity).toMatchObject({ name: before.name, company_name: before.company_name, billing_addr: before.billing_addr, tax_id: "DE123456789", tax_id_type: "VAT" });
  });

  it.each(["member", "outsider"] as const)("refuses the %s with 403 and audits the refusal", async (who) => {
    const before = (await entities("owner")).body.items[0]!;
    const { result: res, entries } = await t.audited(() => put(who, { organization_name: "hijacked" }));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "403", reason: "permission_denied" });
    expect((await entities("owner")).body.items[0]!.name).toBe(before.name);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      organizationId: t.demo.organization_id,
      action: "Update",
      actorId: t.demo[who].user_id,
      actorEmail: t.demo[who].email,
      result: "PERMISSION_DENIED",
      targetIds: [t.demo.organization_id],
    });
  });

  it("refuses an owner demoted while the update waited for their membership: the change is not made", async () => {
    const db = t.gateway.store.db;
    const org = t.demo.organization_id;
    const theMember = and(eq(memberships.organizationId, org), eq(memberships.userId, t.demo.member.user_id));
    const companyBefore = (await entities("owner")).body.items.find((o) => o.id === org)?.company_name;
    await db.update(memberships).set({ relation: "owner" }).where(theMember);
    try {
      expect((await entities("member")).body.items.find((o) => o.id === org)?.relation).toBe("owner");
      let answer: ReturnType<typeof put> | undefined;
      // An owner's demotion of them, under way as their update comes: it holds their membership, then commits.
      await db.transaction(async (tx) => {
        await tx.select({ relation: memberships.relation }).from(memberships).where(theMember).for("update");
        answer = put("member", { company_name: "Renamed by someone no longer an owner" });
        await new Promise((resolve) => setTimeout(resolve, 500));
        await tx.update(memberships).set({ relation: "member" }).where(theMember);
      });
      const res = await answer!;
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect((await entities("owner")).body.items.find((o) => o.id === org)?.company_name).toBe(companyBefore);
    } finally {
      await db.update(memberships).set({ relation: "member" }).where(theMember);
    }
  });

  it("refuses the owner of another organization on an organization they do not own", async () => {
    const globex = (await entities("outsider")).body.items[0]!;
    expect((await put("owner", { organization_name: "x" }, globex.id)).status).toBe(403);
    expect((await entities("outsider")).body.items[0]!.name).toBe(globex.name);
  });

  it("answers 400 naming org_id when it is missing", async () => {
    const { result: res, entries } = await t.audited(() => put("owner", { organization_name: "x" }, null));
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("org_id");
    expect(entries.map((e) => [e.result, e.actorId])).toEqual([["INVALID_ARGUMENT", t.demo.owner.user_id]]);
  });

  it.each([
    ["a number as the name", { organization_name: 42 }, "organization_name"],
    ["an empty name", { organization_name: "" }, "organization_name"],
    ["a blank name", { organization_name: "   " }, "organization_name"],
    ["a name over 255 characters", { organization_name: "x".repeat(256) }, "organization_name"],
    ["a number as the company", { company_name: 7 }, "company_name"],
    ["a company whose name a bidi override reverses", { company_name: "Acme\u202Egnp.exe" }, "company_name"],
    ["an address line with a control character", { billing_addr: { ...ADDRESS, address_line1: "1 Main\u0007 Street" } }, "billing_addr.address_line1"],
    ["an unknown tax_id_type", { tax_id_type: "SSN" }, "tax_id_type"],
    ["a tax_id of the wrong type", { tax_id: ["51"] }, "tax_id"],
    ["billing_addr without city", { billing_addr: { ...ADDRESS, city: undefined } }, "billing_addr.city"],
    ["billing_addr with an empty city", { billing_addr: { ...ADDRESS, city: "" } }, "billing_addr.city"],
    ["billing_addr with a bad country", { billing_addr: { ...ADDRESS, country: "United States" } }, "billing_addr.country"],
    ["billing_addr as a string", { billing_addr: "Denver" }, "billing_addr"],
    ["an unknown field", { organization_name: "ok", owner_id: "me" }, "owner_id"],
    ["an array body", [], "body"],
    ["a null body", null, "body"],
  ])("answers 400 for %s, naming the field, and changes nothing", async (_name, body, field) => {
    const before = (await entities("owner")).body.items[0]!;
    const { result: res, entries } = await t.audited(() => put("owner", body));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "400", reason: "bad_request" });
    expect(res.body.message).toContain(field);
    expect((await entities("owner")).body.items[0]).toEqual(before);
    expect(entries.map((e) => [e.result, e.organizationId])).toEqual([["INVALID_ARGUMENT", t.demo.organization_id]]);
  });

  it("answers 400 to a request without its body (the body is required), and changes nothing, updated_at included", async () => {
    const [before] = await t.gateway.store.db.select().from(organizations).where(eq(organizations.id, t.demo.organization_id));
    const { result: res, entries } = await t.audited(() => t.opJson<ErrorBody>("owner", "updateOrganization", { query: { org_id: t.demo.organization_id } }));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("body: is required");
    const [after] = await t.gateway.store.db.select().from(organizations).where(eq(organizations.id, t.demo.organization_id));
    expect(after).toEqual(before);
    expect(entries.map((e) => e.result)).toEqual(["INVALID_ARGUMENT"]);
  });

  it("answers 400 to malformed JSON and to a non-JSON content type", async () => {
    const malformed = await t.opJson<ErrorBody>("owner", "updateOrganization", { query: { org_id: t.demo.organization_id }, rawBody: "{" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/^body/);
    const text = await t.opJson<ErrorBody>("owner", "updateOrganization", {
      query: { org_id: t.demo.organization_id },
      rawBody: "organization_name=x",
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(400);
    expect(text.body.message).toMatch(/^body/);
    // Another type with nothing in it is no body either: not judged as {}.
    for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
      const empty = await t.opJson<ErrorBody>("owner", "updateOrganization", { query: { org_id: t.demo.organization_id }, rawBody: "", headers: { "content-type": type } });
      expect(empty.status, type).toBe(400);
      expect(empty.body.message).toBe("body: Content-Type must be application/json");
    }
  });
});
