import { eq} from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashSecret } from "../../crypto";
import { s3Keys } from "../../store/schema";
import { createTestGateway, opPath, type TestGateway } from "../../testing";

let t: TestGateway;
let base: string;
beforeAll(async () => {
  t = await createTestGateway();
  base = opPath("listS3Keys", { org_id: t.demo.organization_id });
});
afterAll(() => t.close());

interface S3Key {
  key_uuid: string;
  user_id: string;
  access_key_id: string;
  status: "enabled" | "disabled";
  created_at: string;
  alias?: string;
  expire_at?: string;
}
interface Created {
  access_key_id: string;
  secret_key: string;
  expire_at?: string;
}
interface ErrorBody {
  code: string;
  message: string;
  reason: string;
}
type Who = "owner" | "member" | "outsider";

const list = (who: Who = "owner") => t.opJson<{ items: S3Key[] } & ErrorBody>(who, "listS3Keys", { params: { org_id: t.demo.organization_id } });
const create = (body: unknown, who: Who = "owner") => t.opJson<Created & ErrorBody>(who, "createS3Key", { params: { org_id: t.demo.organization_id }, body });
const future = (days = 30) => new Date(Date.now() + days * 86_400_000).toISOString();

describe("listing S3 keys", () => {
  it("lists the organization's keys with every required field; an expired key is disabled", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.items.map((k) => k.alias)).toEqual(["dataset-import-2024", "training-checkpoints", "eval-results"]);
    for (const key of res.body.items) {
      expect(key).toMatchObject({ key_uuid: expect.any(String), user_id: expect.any(String), access_key_id: expect.stringMatching(/^S3U_[0-9a-f]{32}$/), created_at: expect.any(String) });
    }
    const byAlias = new Map(res.body.items.map((k) => [k.alias, k]));
    expect(byAlias.get("dataset-import-2024")).toMatchObject({ status: "disabled", user_id: t.demo.owner.user_id });
    expect(Date.parse(byAlias.get("dataset-import-2024")!.expire_at!)).toBeLessThan(Date.now());
    expect(byAlias.get("training-checkpoints")).toMatchObject({ status: "enabled" });
    expect(byAlias.get("training-checkpoints")).not.toHaveProperty("expire_at");
    expect(byAlias.get("eval-results")).toMatchObject({ status: "enabled", user_id: t.demo.member.user_id });
    expect(JSON.stringify(res.body)).not.toContain("secret");
  });

  it("lets a member list, refuses an outsider with 403, and answers 401 unsigned", async () => {
    expect((await list("member")).status).toBe(200);
    const outsider = await list("outsider");
    expect(outsider.status).toBe(403);
    expect(outsider.body.reason).toBe("permission_denied");
    expect((await t.gateway.app.request(`http://gateway.test/v1${base}`)).status).toBe(401);
  });
});

describe("creating S3 keys", () => {
  it("returns the secret once, stores only its hash, and never lists it", async () => {
    const expires = future(60);
    const { result: res, entries } = await t.audited(() => create({ alias: "nightly-backup", expire_at: expires }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ access_key_id: expect.stringMatching(/^S3U_/), expire_at: new Date(expires).toISOString() });
    expect(res.body.secret_key.length).toBeGreaterThanOrEqual(40);

    const [row] = await t.gateway.store.db.select().from(s3Keys).where(eq(s3Keys.accessKeyId, res.body.access_key_id));
    expect(row).toMatchObject({ userId: t.demo.owner.user_id, organizationId: t.demo.organization_id, alias: "nightly-backup", secretHash: hashSecret(res.body.secret_key) });
    expect(JSON.stringify(row)).not.toContain(res.body.secret_key);

    const listing = await (await t.op("owner", "listS3Keys", { params: { org_id: t.demo.organization_id } })).text();
    expect(listing).toContain(res.body.access_key_id);
    expect(listing).not.toContain(res.body.secret_key);
    const listed = (JSON.parse(listing) as { items: S3Key[] }).items.find((k) => k.access_key_id === res.body.access_key_id);
    expect(listed).toMatchObject({ alias: "nightly-backup", status: "enabled", user_id: t.demo.owner.user_id });

    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ organizationId: t.demo.organization_id, action: "Create", result: "OK", targetType: "S3Key", targetIds: [res.body.access_key_id], targetNames: ["nightly-backup"] });
    expect(JSON.stringify(entries[0])).not.toContain(res.body.secret_key);
  });

  it("accepts an empty body: no alias, no expiry", async () => {
    const res = await create({});
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty("expire_at");
    const listed = (await list()).body.items.find((k) => k.access_key_id === res.body.access_key_id);
    expect(listed).toMatchObject({ status: "enabled" });
    expect(listed).not.toHaveProperty("alias");
  });

  it("lets a plain member create a key of their own", async () => {
    const res = await create({ alias: "member-key" }, "member");
    expect(res.status).toBe(200);
    const listed = (await list()).body.items.find((k) => k.access_key_id === res.body.access_key_id);
    expect(listed?.user_id).toBe(t.demo.member.user_id);
  });

  it("refuses an outsider with 403 and audits the refusal", async () => {
    const { result: res, entries } = await t.audited(() => create({ alias: "intruder" }, "outsider"));
    expect(res.status).toBe(403);
    expect(entries.map((e) => [e.result, e.organizationId, e.actorId])).toEqual([["PERMISSION_DENIED", t.demo.organization_id, t.demo.outsider.user_id]]);
    expect((await list()).body.items.map((k) => k.alias)).not.toContain("intruder");
  });

  it.each([
    ["an alias over 255 characters", { alias: "x".repeat(256) }, "body.alias"],
    ["a numeric alias", { alias: 7 }, "body.alias"],
    ["an alias with control characters", { alias: "a\u0000b" }, "body.alias"],
    ["a past expire_at", { expire_at: "2001-01-01T00:00:00Z" }, "body.expire_at: must be in the future"],
    ["a date-only expire_at", { expire_at: "2031-01-01" }, "body.expire_at: must be an RFC 3339"],
    ["a garbage expire_at", { expire_at: "soon" }, "body.expire_at"],
    ["an expire_at past year 9999 in UTC", { expire_at: "9999-12-31T23:00:00-05:00" }, "body.expire_at: must fall between years 0001 and 9999"],
    ["an array body", [], "body"],
  ])("answers 400 for %s and creates nothing", async (_name, body, field) => {
    const before = (await list()).body.items.length;
    const { result: res, entries } = await t.audited(() => create(body));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "400", reason: "bad_request" });
    expect(res.body.message).toContain(field);
    expect((await list()).body.items).toHaveLength(before);
    expect(entries.map((e) => e.result)).toEqual(["INVALID_ARGUMENT"]);
  });
});

describe("deleting S3 keys", () => {
  it("deletes the caller's own key (204, audited); a repeated delete is 404", async () => {
    const { access_key_id: id } = (await create({ alias: "short-lived" }, "member")).body;
    const { result: res, entries } = await t.audited(() => t.op("member", "deleteS3Key", { params: { org_id: t.demo.organization_id, access_key_id: id } }));
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect(entries[0]).toMatchObject({ action: "Delete", result: "OK", targetType: "S3Key", targetIds: [id], targetNames: ["short-lived"], actorId: t.demo.member.user_id });
    expect((await list()).body.items.map((k) => k.access_key_id)).not.toContain(id);

    const again = await t.audited(() => t.opJson<ErrorBody>("member", "deleteS3Key", { params: { org_id: t.demo.organization_id, access_key_id: id } }));
    expect(again.result.status).toBe(404);
    expect(again.result.body.reason).toBe("not_found");
    expect(again.entries.map((e) => e.result)).toEqual(["NOT_FOUND"]);
  });

  it("answers 404 for unknown and malformed key ids", async () => {
    for (const id of ["S3U_00000000000000000000000000000000", "CKIA493K6LOVDNNAR4SZ"]) {
      expect((await t.opJson("owner", "deleteS3Key", { params: { org_id: t.demo.organization_id, access_key_id: id } })).status, id).toBe(404);
    }
    expect([400, 404]).toContain((await t.json("owner", "DELETE", `${base}/a%00b`)).status); // by hand: an escaped NUL in the segment
  });

  it("refuses the member another user's key (403) but lets the owner (s3.manage) delete it", async () => {
    const { access_key_id: ownerKey } = (await create({ alias: "owner-only" })).body;
    const refused = await t.audited(() => t.opJson<ErrorBody>("member", "deleteS3Key", { params: { org_id: t.demo.organization_id, access_key_id: ownerKey } }));
    expect(refused.result.status).toBe(403);
    expect(refused.entries.map((e) => e.result)).toEqual(["PERMISSION_DENIED"]);
    expect((await list()).body.items.map((k) => k.access_key_id)).toContain(ownerKey);

    const { access_key_id: memberKey } = (await create({ alias: "member-owned" }, "member")).body;
    expect((await t.op("owner", "deleteS3Key", { params: { org_id: t.demo.organization_id, access_key_id: memberKey } })).status).toBe(204);
    expect((await list()).body.items.map((k) => k.access_key_id)).not.toContain(memberKey);
  });

  it("refuses an outsider with 403, and does not reach keys of another organization", async () => {
    const key = (await list()).body.items[0]!;
    expect((await t.opJson("outsider", "deleteS3Key", { params: { org_id: t.demo.organization_id, access_key_id: key.access_key_id } })).status).toBe(403);
    const globex = await t.outsiderOrganizationId();
    const theirs = (await t.opJson<{ items: S3Key[] }>("outsider", "listS3Keys", { params: { org_id: globex } })).body.items[0]!;
    expect((await t.opJson("owner", "deleteS3Key", { params: { org_id: t.demo.organization_id, access_key_id: theirs.access_key_id } })).status).toBe(404);
    expect((await t.opJson("owner", "deleteS3Key", { params: { org_id: globex, access_key_id: theirs.access_key_id } })).status).toBe(403);
  });
});
