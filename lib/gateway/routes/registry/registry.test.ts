import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addMember, createApiKey, createUser } from "../../admin";
import { hashSecret } from "../../crypto";
import type { DemoUser } from "../../seed";
import { memberships, registryTokens } from "../../store/schema";
import { createTestGateway, opPath, type TestGateway } from "../../testing";

let t: TestGateway;
beforeAll(async () => {
  t = await createTestGateway();
});
afterAll(() => t.close());

interface ErrorBody {
  code: string;
  message: string;
  reason: string;
}

async function newUser(email: string): Promise<DemoUser> {
  const { db } = t.gateway.store;
  const user = await createUser(db, { email });
  const key = await createApiKey(db, t.gateway.deps.masterKey, user.id, "test");
  return { user_id: user.id, email: user.email, access_key_id: key.accessKeyId, secret_key: key.secretKey };
}

const future = (days = 30) => new Date(Date.now() + days * 86_400_000).toISOString();

describe("registry catalog", () => {
  it("lists the supported locations", async () => {
    const res = await t.opJson<{ items: string[] }>("member", "listSupportedLocations");
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual(["eu-north1", "us-east1", "us-northcentral1"]);
  });

  it("lists the supported upstream providers", async () => {
    const res = await t.opJson<{ items: string[] }>("outsider", "listSupportedProviders");
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual(expect.arrayContaining(["docker-hub", "ghcr", "quay", "ecr-public", "gcr", "nvcr"]));
  });

  it("answers 401 to unsigned requests", async () => {
    for (const path of [opPath("listSupportedLocations"), opPath("listSupportedProviders")]) {
      expect((await t.gateway.app.request(`http://gateway.test/v1${path}`)).status).toBe(401);
    }
    expect((await t.gateway.app.request(`http://gateway.test/v1${opPath("createCcrToken")}`, { method: "POST" })).status).toBe(401);
  });
});

describe("POST /ccr/tokens", () => {
  it("creates a token shown once, stored as a hash with alias, expiry and creator, audited", async () => {
    const expires = future(14);
    const { result: res, entries } = await t.audited(() => t.opJson<{ token: string }>("member", "createCcrToken", { body: { alias: "ci-pull", expires_at: expires } }));
    expect(res.status).toBe(200);
    expect(res.body.token).toMatch(/^ccr_[\w-]{40,}$/);
    const [row] = await t.gateway.store.db.select().from(registryTokens).where(eq(registryTokens.tokenHash, hashSecret(res.body.token)));
    expect(row).toMatchObject({ alias: "ci-pull", userId: t.demo.member.user_id, organizationId: t.demo.organization_id });
    expect(row!.expiresAt?.toISOString()).toBe(new Date(expires).toISOString());
    expect(JSON.stringify(row)).not.toContain(res.body.token);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ organizationId: t.demo.organization_id, action: "Create", result: "OK", targetType: "CCRToken", targetIds: [row!.id], targetNames: ["ci-pull"] });
    expect(JSON.stringify(entries[0])).not.toContain(res.body.token);
  });

  it("accepts no body, and an empty body sent as JSON", async () => {
    const none = await t.opJson<{ token: string }>("owner", "createCcrToken");
    expect(none.status).toBe(200);
    const empty = await t.opJson<{ token: string }>("owner", "createCcrToken", { rawBody: "" });
    expect(empty.status).toBe(200);
    expect(empty.body.token).not.toBe(none.body.token);
    const [row] = await t.gateway.store.db.select().from(registryTokens).where(eq(registryTokens.tokenHash, hashSecret(none.body.token)));
    expect(row).toMatchObject({ alias: "", expiresAt: null, userId: t.demo.owner.user_id });
  });

  it("files the token under the caller's first organization", async () => {
    const res = await t.opJson<{ token: string }>("outsider", "createCcrToken", { body: {} });
    expect(res.status).toBe(200);
    const [row] = await t.gateway.store.db.select().from(registryTokens).where(eq(registryTokens.tokenHash, hashSecret(res.body.token)));
    expect(row?.organizationId).toBe(await t.outsiderOrganizationId());

    // Joined Globex first, Acme later: Globex it is.
    const both = await newUser("two-orgs@acme.example");
    await addMember(t.gateway.store.db, await t.outsiderOrganizationId(), both.user_id, "member");
    await addMember(t.gateway.store.db, t.demo.organization_id, both.user_id, "member");
    const second = await t.opJson<{ token: string }>(both, "createCcrToken", { body: { alias: "x" } });
    const [row2] = await t.gateway.store.db.select().from(registryTokens).where(eq(registryTokens.tokenHash, hashSecret(second.body.token)));
    expect(row2?.organizationId).toBe(await t.outsiderOrganizationId());
  });

  it("files the token under the caller's first organization they are still an active member of", async () => {
    const { db } = t.gateway.store;
    const suspend = (userId: string, organizationId: string) =>
      db.update(memberships).set({ status: "suspended" }).where(and(eq(memberships.userId, userId), eq(memberships.organizationId, organizationId)));
    // Joined Acme first, Globex later; Acme suspends them (as a SCIM `active: false` does): Globex owns the token.
    const moved = await newUser("suspended-first@acme.example");
    await addMember(db, t.demo.organization_id, moved.user_id, "member");
    await addMember(db, await t.outsiderOrganizationId(), moved.user_id, "member");
    await suspend(moved.user_id, t.demo.organization_id);
    const token = await t.opJson<{ token: string }>(moved, "createCcrToken", { body: {} });
    expect(token.status).toBe(200);
    const [row] = await db.select().from(registryTokens).where(eq(registryTokens.tokenHash, hashSecret(token.body.token)));
    expect(row?.organizationId).toBe(await t.outsiderOrganizationId());

    // Suspended in their only organization: none owns a token of theirs, and the refusal is filed with it.
    const gone = await newUser("suspended-only@acme.example");
    await addMember(db, t.demo.organization_id, gone.user_id, "member");
    await suspend(gone.user_id, t.demo.organization_id);
    const before = (await db.select().from(registryTokens)).length;
    const { result: refused, entries } = await t.audited(() => t.opJson<ErrorBody>(gone, "createCcrToken", { body: {} }));
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe("caller: belongs to no organization that could own the token");
    expect(await db.select().from(registryTokens)).toHaveLength(before);
    expect(entries.map((e) => [e.organizationId, e.result])).toEqual([[t.demo.organization_id, "INVALID_ARGUMENT"]]);
  });

  it("answers 400 to a caller who belongs to no organization", async () => {
    const loner = await newUser("loner@example.org");
    const res = await t.opJson<ErrorBody>(loner, "createCcrToken", { body: {} });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^caller: /);
  });

  it.each([
    ["a past expiry", { expires_at: "2020-01-01T00:00:00Z" }, "body.expires_at: must be in the future"],
    ["an expiry that is not RFC 3339", { expires_at: "01/02/2031" }, "body.expires_at: must be an RFC 3339"],
    ["a numeric expiry", { expires_at: 12 }, "body.expires_at"],
    ["an alias over 255 characters", { alias: "a".repeat(256) }, "body.alias"],
    ["an array body", ["x"], "body"],
  ])("answers 400 for %s and stores nothing", async (_name, body, message) => {
    const before = (await t.gateway.store.db.select().from(registryTokens)).length;
    const { result: res, entries } = await t.audited(() => t.opJson<ErrorBody>("owner", "createCcrToken", { body }));
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(message);
    expect(await t.gateway.store.db.select().from(registryTokens)).toHaveLength(before);
    expect(entries.map((e) => e.result)).toEqual(["INVALID_ARGUMENT"]);
  });

  it("answers 400 to malformed JSON", async () => {
    const res = await t.opJson<ErrorBody>("owner", "createCcrToken", { rawBody: "{alias" });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^body/);
  });
});
