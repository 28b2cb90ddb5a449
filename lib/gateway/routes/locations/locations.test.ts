import { asc, gt, max } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, organizations } from "../../store/schema";
import { signedHeaders } from "@/lib/signing";
import { fromDatabaseError } from "../../errors";
import { createTestGateway, opPath, type TestGateway } from "../../testing";

/** A fresh store with the whole demo seeded; slow on a busy machine. */
const SETUP_MS = 180_000;

let t: TestGateway;
beforeAll(async () => {
  t = await createTestGateway();
}, SETUP_MS);
afterAll(() => t.close());

interface ErrorBody {
  code: string;
  message: string;
  error_id: string;
  reason: string;
}

function expectErrorBody(body: unknown, status: number, res: Response): asserts body is ErrorBody {
  expect(Object.keys(body as object).sort()).toEqual(["code", "error_id", "message", "reason"]);
  const e = body as ErrorBody;
  expect(e.code).toBe(String(status));
  expect(e.message).not.toBe("");
  expect(e.reason).not.toBe("");
  expect(e.error_id).not.toBe("");
  expect(e.error_id).toBe(res.headers.get("x-request-id"));
}

describe("GET /locations", () => {
  it("lists the hosting locations as strings", async () => {
    const res = await t.opJson<{ items: unknown[] }>("member", "listLocations");
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBeGreaterThan(0);
    for (const item of res.body.items) expect(item).toEqual(expect.stringMatching(/^[a-z]+-[a-z]+\d+-[a-z]$/));
    expect(new Set(res.body.items).size).toBe(res.body.items.length);
  });

  it("answers 401 with the error body to an unsigned request", async () => {
    const res = await t.gateway.app.request("http://gateway.test/v1/locations");
    expect(res.status).toBe(401);
    expectErrorBody(await res.json(), 401, res);
  });
});

describe("the error envelope", () => {
  it("echoes a sane incoming X-Request-Id as error_id, and replaces an unsafe one", async () => {
    const kept = await t.op("owner", "listProjects", {
      query: { skip_loading_project_resources: "maybe" },
      headers: { "x-request-id": "trace-0123456789" },
    });
    expect(kept.status).toBe(400);
    const body = (await kept.json()) as ErrorBody;
    expectErrorBody(body, 400, kept);
    expect(body.error_id).toBe("trace-0123456789");
    expect(body.message).toContain("skip_loading_project_resources");

    const replaced = await t.call("owner", "GET", "/no/such/path", { headers: { "x-request-id": "<script>" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("answers unknown routes with 404 and the error body", async () => {
    for (const [method, path] of [
      ["GET", "/no/such/path"],
      ["POST", "/organizations/nothing-here"],
      ["PATCH", "/organizations/projects"],
    ] as const) {
      const res = await t.call("owner", method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      const body = await res.json();
      expectErrorBody(body, 404, res);
      expect(body.reason).toBe("not_found");
    }
    const outside = await t.gateway.app.request("http://gateway.test/not-versioned");
    expect(outside.status).toBe(404);
    expectErrorBody(await outside.json(), 404, outside);
  });

  it("refuses request bodies above 1 MiB with 413, with or without a Content-Length, and changes nothing", async () => {
    const [before] = await t.gateway.store.db.select({ seq: max(auditLog.seq) }).from(auditLog);
    const big = JSON.stringify({ organization_name: "x", company_name: "y".repeat(1024 * 1024) });
    const query = { org_id: t.demo.organization_id };
    const lengths: Array<Record<string, string>> = [{ "content-length": String(Buffer.byteLength(big)) }, {}];
    for (const headers of lengths) {
      const res = await t.op("owner", "updateOrganization", { query, rawBody: big, headers });
      expect(res.status).toBe(413);
      const body = await res.json();
      expectErrorBody(body, 413, res);
      expect(body.reason).toBe("payload_too_large");
    }
    // A streamed body announces no length: the limit must hold while reading it.
    const url = `http://gateway.test/v1/organizations/entities?org_id=${t.demo.organization_id}`;
    const credentials = { accessKeyId: t.demo.owner.access_key_id, secretKey: t.demo.owner.secret_key };
    const streamed = await t.gateway.app.request(url, {
      method: "PUT",
      body: new Blob([big]).stream(),
      duplex: "half",
      headers: { ...signedHeaders(credentials, { method: "PUT", url }), "content-type": "application/json" },
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expectErrorBody(await streamed.json(), 413, streamed);

    const orgs = await t.gateway.store.db.select({ name: organizations.name }).from(organizations);
    expect(orgs.map((o) => o.name)).not.toContain("x");
    const entries = await t.gateway.store.db
      .select()
      .from(auditLog)
      .where(gt(auditLog.seq, Number(before?.seq ?? 0)))
      .orderBy(asc(auditLog.seq));
    // Refused before the signature is checked, so there is no actor to file an entry for.
    expect(entries).toEqual([]);
  });

  it("accepts a body just under the limit", async () => {
    const res = await t.op("owner", "updateOrganization", {
      query: { org_id: t.demo.organization_id },
      body: { company_name: "Acme AI Labs, Inc.", tax_id: "1".repeat(10) },
    });
    expect(res.status).toBe(200);
  });
});

describe("text the store cannot hold", () => {
  const org = () => t.demo.organization_id;
  it.each([
    // An escaped NUL in a segment is written out by hand: opPath would escape its "%" again.
    ["GET", "/organizations/projects/a%00b", {}, "path.project_id"],
    ["DELETE", "/organizations/projects/a%00b", {}, "path.project_id"],
    ["GET", opPath("listProjects"), { query: { project_name: "a\u0000b" } }, "query.project_name"],
    ["PUT", opPath("updateProject"), { query: { project_id: "a\u0000b" }, body: { name: "x" } }, "query.project_id"],
    ["PUT", opPath("updateOrganization"), { query: { org_id: "ORG" }, body: { company_name: "a\u0000b" } }, "body.company_name"],
    ["PUT", opPath("updateOrganization"), { query: { org_id: "ORG" }, rawBody: '{"company_name":"\\ud800"}' }, "body.company_name"],
    [
      "PUT",
      opPath("updateOrganization"),
      { query: { org_id: "ORG" }, body: { billing_addr: { address_line1: "x\ud800", city: "c", state_or_region: "s", postal_code: "1", country: "US" } } },
      "body.billing_addr.address_line1",
    ],
    ["POST", opPath("createProject"), { body: { organization_id: "ORG", name: "x\udc00y" } }, "body.name"],
    ["GET", opPath("listRoleBindings"), { query: { user_id: "a\u0000b" } }, "query.user_id"],
    ["POST", "/iam/users/a%00b/role-bindings", { body: { bindings_to_create: [], bindings_to_delete: [] } }, "path.user_id"],
    ["POST", opPath("applyRoleBindings", { user_id: "MEMBER" }), { body: { bindings_to_create: [], bindings_to_delete: ["a\u0000"] } }, "body.bindings_to_delete[0]"],
  ] as const)("%s %s: a NUL or an unpaired surrogate is a 400 naming the field, never a 500", async (method, path, options, field) => {
    const withOrg = JSON.parse(JSON.stringify(options).replaceAll('"ORG"', JSON.stringify(org()))) as Record<string, unknown>;
    const res = await t.json<ErrorBody>("owner", method, path.replace("MEMBER", t.demo.member.user_id), withOrg);
    expect(res.status).toBe(400);
    // The store's rule (NUL, unpaired surrogates) or, first for a field held to plain text, that rule (NUL is a control character).
    expect(res.body.message).toMatch(new RegExp(`^${field.replace(/[.[\]]/g, "\\$&")}: must not contain (NUL characters or unpaired surrogates|control characters or invisible formatting characters)$`));
  });

  it("refuses a remembered query every time it is sent, and answers a storable one every time", async () => {
    // Queries are parsed once and remembered (router.ts); what the store cannot hold is refused on each request.
    for (let i = 0; i < 3; i++) {
      const bad = await t.json<ErrorBody>("owner", "GET", opPath("listProjects"), { query: { project_name: "twice\u0000" } });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe("query.project_name: must not contain NUL characters or unpaired surrogates");
      const good = await t.json("owner", "GET", opPath("listProjects"), { query: { project_name: "twice" } });
      expect(good.status).toBe(200);
    }
  });

  it("keeps well-formed text outside the Basic Multilingual Plane", async () => {
    const res = await t.opJson<{ entity: { company_name: string } }>("owner", "updateOrganization", {
      query: { org_id: org() },
      body: { company_name: "Acme ☁ 😀 AI" },
    });
    expect(res.status).toBe(200);
    expect(res.body.entity.company_name).toBe("Acme ☁ 😀 AI");
  });

  it("turns a store refusal of such text into a 400 should any slip through", () => {
    for (const code of ["22021", "22P05"]) {
      const err = fromDatabaseError(Object.assign(new Error("invalid byte sequence"), { code }));
      expect(err).toMatchObject({ status: 400, reason: "bad_request" });
      expect(err?.message).toMatch(/^\w+: /);
    }
    expect(fromDatabaseError(Object.assign(new Error("x"), { cause: { code: "22021" } }))?.status).toBe(400);
    // Other refusals are not the request's text (a deadlock is a 503 to retry: errors.test.ts).
    expect(fromDatabaseError(Object.assign(new Error("syntax error"), { code: "42601" }))).toBeNull();
  });
});
