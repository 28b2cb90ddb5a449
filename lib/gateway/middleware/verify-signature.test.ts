import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationPath } from "@/lib/contract/operations";
import { authorizationHeader, sign, TIMESTAMP_HEADER } from "@/lib/signing";
import { createApiKey } from "../admin";
import { buildUrl, createTestGateway, type TestGateway } from "../testing";
import { pathAndQuery } from "./verify-signature";

let t: TestGateway;
beforeAll(async () => {
  t = await createTestGateway();
});
afterAll(() => t.close());

async function raw(path: string, headers: Record<string, string>, method = "GET") {
  return t.gateway.app.request(`http://gateway.test${path}`, { method, headers });
}

describe("request signing at the gateway", () => {
  it("accepts signed requests under /v1 and /v1alpha5", async () => {
    expect((await t.op("owner", "listLocations")).status).toBe(200);
    expect((await t.op("owner", "listLocations", { prefix: "/v1alpha5" })).status).toBe(200);
  });

  it("accepts repeated and escaped query values", async () => {
    const res = await t.op("owner", "listProjects", {
      query: [
        ["project_name", "café ☁ a+b/c,d"],
        ["skip_loading_project_resources", "true"],
      ],
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ items: [] });
  });

  it("answers 400 naming the query for a percent-escape that is cut short or not UTF-8, signed or not", async () => {
    const path = operationPath("listProjects");
    for (const query of ["?project_name=%FF", "?project_name=%E2%9C", "?project_name=50%", "?project_name=%zz&skip_loading_project_resources=true"]) {
      const timestamp = now().toISOString();
      const signature = sign(t.demo.owner.secret_key, { method: "GET", path, query, timestamp });
      const signed: Record<string, string> = { Authorization: authorizationHeader(t.demo.owner.access_key_id, signature), [TIMESTAMP_HEADER]: timestamp };
      for (const headers of [signed, {}]) {
        const res = await raw(`${path}${query}`, headers);
        expect(res.status, query).toBe(400);
        expect(await res.json()).toMatchObject({ code: "400", reason: "bad_request", message: expect.stringMatching(/^query: /) });
      }
    }
    // Whole escapes of UTF-8 are read as ever.
    const query = "?project_name=%E2%9C%93";
    const timestamp = now().toISOString();
    const signature = sign(t.demo.owner.secret_key, { method: "GET", path, query, timestamp });
    expect((await raw(`${path}${query}`, { Authorization: authorizationHeader(t.demo.owner.access_key_id, signature), [TIMESTAMP_HEADER]: timestamp })).status).toBe(200);
  });

  it("reads a malformed escape in the query of an operation that takes none as the signature does, as written: no 400 it does not declare", async () => {
    for (const id of ["listLocations", "getOrganizations"] as const) {
      const path = operationPath(id);
      const query = "?x=%ZZ";
      const timestamp = now().toISOString();
      const signature = sign(t.demo.owner.secret_key, { method: "GET", path, query, timestamp });
      expect((await raw(`${path}${query}`, { Authorization: authorizationHeader(t.demo.owner.access_key_id, signature), [TIMESTAMP_HEADER]: timestamp })).status, id).toBe(200);
      expect((await raw(`${path}${query}`, {})).status, id).toBe(401);
    }
  });

  it("answers 401 with the error body, request id included", async () => {
    const res = await raw(operationPath("listLocations"), {});
    expect(res.status).toBe(401);
    const body = (await res.json()) as Record<string, string>;
    expect(body).toMatchObject({ code: "401", reason: "unauthenticated" });
    expect(body.error_id).toBe(res.headers.get("x-request-id"));
  });

  const now = () => new Date();
  const signedFor = (path: string, ts: string, secret: string, method = "GET") => {
    const url = buildUrl("", path);
    return sign(secret, { method, path: url.pathname, query: url.search, timestamp: ts });
  };

  it.each([
    ["malformed header", () => ({ Authorization: "Bearer nonsense", [TIMESTAMP_HEADER]: now().toISOString() })],
    [
      "version 2.0",
      () => {
        const ts = now().toISOString();
        return { Authorization: `Bearer 2.0:${t.demo.owner.access_key_id}:${signedFor(operationPath("listLocations"), ts, t.demo.owner.secret_key)}`, [TIMESTAMP_HEADER]: ts };
      },
    ],
    [
      "unknown key",
      () => {
        const ts = now().toISOString();
        return { Authorization: authorizationHeader("AKNOSUCHKEY", signedFor(operationPath("listLocations"), ts, t.demo.owner.secret_key)), [TIMESTAMP_HEADER]: ts };
      },
    ],
    [
      "missing timestamp",
      () => ({ Authorization: authorizationHeader(t.demo.owner.access_key_id, signedFor(operationPath("listLocations"), "x", t.demo.owner.secret_key)) }),
    ],
    [
      "unparsable timestamp",
      () => ({
        Authorization: authorizationHeader(t.demo.owner.access_key_id, signedFor(operationPath("listLocations"), "yesterday", t.demo.owner.secret_key)),
        [TIMESTAMP_HEADER]: "yesterday",
      }),
    ],
    [
      "stale timestamp",
      () => {
        const ts = new Date(Date.now() - 301_000).toISOString();
        return { Authorization: authorizationHeader(t.demo.owner.access_key_id, signedFor(operationPath("listLocations"), ts, t.demo.owner.secret_key)), [TIMESTAMP_HEADER]: ts };
      },
    ],
    [
      "future timestamp",
      () => {
        const ts = new Date(Date.now() + 301_000).toISOString();
        return { Authorization: authorizationHeader(t.demo.owner.access_key_id, signedFor(operationPath("listLocations"), ts, t.demo.owner.secret_key)), [TIMESTAMP_HEADER]: ts };
      },
    ],
    [
      "signature of another path",
      () => {
        const ts = now().toISOString();
        return { Authorization: authorizationHeader(t.demo.owner.access_key_id, signedFor("/v1alpha5/locations", ts, t.demo.owner.secret_key)), [TIMESTAMP_HEADER]: ts };
      },
    ],
    [
      "signature with another secret",
      () => {
        const ts = now().toISOString();
        return { Authorization: authorizationHeader(t.demo.owner.access_key_id, signedFor(operationPath("listLocations"), ts, t.demo.member.secret_key)), [TIMESTAMP_HEADER]: ts };
      },
    ],
    [
      "signature of another method",
      () => {
        const ts = now().toISOString();
        return { Authorization: authorizationHeader(t.demo.owner.access_key_id, signedFor(operationPath("listLocations"), ts, t.demo.owner.secret_key, "POST")), [TIMESTAMP_HEADER]: ts };
      },
    ],
  ])("401 for %s", async (_name, headers) => {
    const res = await raw(operationPath("listLocations"), headers());
    expect(res.status).toBe(401);
  });

  it("401 when the query differs from the signed one", async () => {
    const ts = now().toISOString();
    const sig = signedFor(`${operationPath("listProjects")}?project_name=a`, ts, t.demo.owner.secret_key);
    const res = await raw(`${operationPath("listProjects")}?project_name=b`, {
      Authorization: authorizationHeader(t.demo.owner.access_key_id, sig),
      [TIMESTAMP_HEADER]: ts,
    });
    expect(res.status).toBe(401);
  });

  it("accepts a timestamp with an offset inside the window", async () => {
    const d = new Date(Date.now() - 60_000);
    const ts = new Date(d.getTime() + 2 * 3600_000).toISOString().replace("Z", "+02:00");
    const sig = signedFor(operationPath("listLocations"), ts, t.demo.owner.secret_key);
    const res = await raw(operationPath("listLocations"), { Authorization: authorizationHeader(t.demo.owner.access_key_id, sig), [TIMESTAMP_HEADER]: ts });
    expect(res.status).toBe(200);
  });

  it("keeps to declared statuses: an operation without 401 answers 403", async () => {
    const res = await raw(operationPath("listRoles"), {});
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ reason: "unauthenticated" });
  });

  it("marks every answer uncacheable and unsniffable", async () => {
    const res = await t.op("owner", "listLocations");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("serves health and the OpenAPI document without signing", async () => {
    expect((await raw("/healthz", {})).status).toBe(200);
    const doc = await raw("/v1/openapi.json", {});
    expect(doc.status).toBe(200);
    const body = (await doc.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(body.paths)).toContain("/organizations/projects");
  });
});

describe("keys that expire", () => {
  it("signs until its expiry and is refused from then on, a cached lookup included", async () => {
    const expiresAt = new Date(Date.now() + 1_500);
    const credentials = await createApiKey(t.gateway.store.db, t.gateway.deps.masterKey, t.demo.member.user_id, "short-lived", expiresAt);
    expect((await t.op("member", "listLocations", { credentials })).status).toBe(200);
    expect((await t.op("member", "listLocations", { credentials })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 50));
    const res = await t.op("member", "listLocations", { credentials });
    expect(res.status).toBe(401);
    // The member's own key, without an expiry, is unaffected.
    expect((await t.op("member", "listLocations")).status).toBe(200);
  });
});

describe("pathAndQuery", () => {
  const parsed = (url: string) => {
    const u = new URL(url);
    return { path: u.pathname, query: u.search };
  };

  it("gives what the URL parser gives, for plain and for rewritten targets", () => {
    for (const url of [
      "http://gateway.test/v1/organizations/projects",
      "http://gateway.test/v1/organizations/projects?",
      "http://gateway.test/v1/locations?a=1&b=two&a=3",
      "http://127.0.0.1:3000/v1alpha5/x?project_name=caf%C3%A9",
      "http://h/v1/./a/../b?x='y'",
      "http://h/v1/%2e%2e/locations",
      "http://h/v1/locations#frag",
      "http://h/v1/a b?c d",
      "http://h/v1/é?ü=1",
      "http://h",
      "http://h?x=1",
      "http://H:80/v1/a",
    ]) {
      expect(pathAndQuery(url), url).toEqual(parsed(url));
    }
  });

  it("agrees with the URL parser on random targets", () => {
    const chars = fc.constantFrom(..."aZ09-._~/?&=+,;:@!$()*%2e'\\#\"<>`{}|^ é".split(""));
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 40 }).map((cs) => cs.join("")), (target) => {
        const url = `http://gateway.test/${target}`;
        expect(pathAndQuery(url)).toEqual(parsed(url));
      }),
      { numRuns: 20_000 },
    );
  });
});
