import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { operationPath } from "@/lib/contract/operations";
import type { ConsoleSession, SessionState } from "@/lib/console/session";
import { signInWithKey } from "@/lib/console/sign-in";
import { apiKeys } from "@/lib/gateway/store/schema/identity";
import { projects } from "@/lib/gateway/store/schema";
import { downloadName, handleCloudRequest, isCrossSiteMutation, type BffDeps } from "./bff";
import { cloudFetch, type CloudFetchInit } from "./gateway-client";
import { sessions } from "./store/schema";
import { createConsoleTestbed, type ConsoleTestbed } from "./testing";

const HOST = "console.test";
const session: ConsoleSession = { sessionId: "s-1", userId: "u-1", email: "u@example.test", mfaPending: false, factors: ["api_key"] };

interface Call {
  method: string;
  pathAndQuery: string;
  init: CloudFetchInit;
}

function fakeDeps(answer: () => Response = () => Response.json({ ok: true }), state: SessionState = { status: "active", session }): BffDeps & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    session: async () => state,
    fetch: async (_s, method, pathAndQuery, init) => {
      calls.push({ method, pathAndQuery, init });
      return answer();
    },
    maxBodyBytes: 1024,
    trustedProxyHops: 1,
  };
}

function req(path: string, init: RequestInit & { headers?: Record<string, string> } = {}): Request {
  return new Request(`http://${HOST}${path}`, { ...init, headers: { host: HOST, ...init.headers } });
}

describe("allow-list", () => {
  it("forwards a declared operation with its raw query, repeated names included", async () => {
    const deps = fakeDeps();
    const res = await handleCloudRequest(req("/api/cloud/v1/organizations/projects?org_id=o%201&x=a&x=b"), deps);
    expect(res.status).toBe(200);
    expect(deps.calls).toEqual([{ method: "GET", pathAndQuery: "/v1/organizations/projects?org_id=o%201&x=a&x=b", init: expect.objectContaining({ body: undefined }) }]);
  });

  it("accepts the v1alpha5 prefix and path parameters", async () => {
    const deps = fakeDeps();
    expect((await handleCloudRequest(req("/api/cloud/v1alpha5/organizations/projects/p-1/vms"), deps)).status).toBe(200);
    expect(deps.calls[0]?.pathAndQuery).toBe("/v1alpha5/organizations/projects/p-1/vms");
  });

  it.each([
    ["GET", "/api/cloud/v1/not-an-operation"],
    ["GET", "/api/cloud/v2/organizations/projects"],
    ["GET", "/api/cloud/organizations/projects"],
    ["GET", "/api/cloud/v1/healthz"],
    ["GET", "/api/cloud/v1/openapi.json"],
    ["PATCH", "/api/cloud/v1/organizations/projects"],
    ["DELETE", "/api/cloud/v1/organizations/entities"],
    ["GET", "/api/cloud/v1/organizations/projects/p-1/vms/extra"],
  ])("%s %s is not forwarded (404)", async (method, path) => {
    const deps = fakeDeps();
    const res = await handleCloudRequest(req(path, { method }), deps);
    expect(res.status).toBe(404);
    expect(deps.calls).toHaveLength(0);
  });

  it("refuses a path with a letter, digit or - . _ ~ percent-encoded, which the gateway would route as another operation", async () => {
    for (const path of ["/api/cloud/v1/organizations/o-1/reservations/gpu-tr%61cking", "/api/cloud/v1/organizations/o-1/users/u-1/%6Dfa", "/api/cloud/v1/organizations/%%361"]) {
      const deps = fakeDeps();
      const res = await handleCloudRequest(req(path), deps);
      expect(res.status, path).toBe(400);
      expect(await res.json()).toMatchObject({ reason: "bad_request", message: expect.stringMatching(/^path: /) });
      expect(deps.calls).toHaveLength(0);
    }
    // Escapes of other characters stay what they are: a "%" or "/" inside a parameter, a non-ASCII one.
    const deps = fakeDeps();
    expect((await handleCloudRequest(req("/api/cloud/v1/organizations/projects/p%2561%2F%C3%A9/vms"), deps)).status).toBe(200);
    expect(deps.calls[0]?.pathAndQuery).toBe("/v1/organizations/projects/p%2561%2F%C3%A9/vms");
  });

  it("answers HEAD as the gateway's GET, without a body", async () => {
    const deps = fakeDeps();
    const res = await handleCloudRequest(req("/api/cloud/v1/locations", { method: "HEAD" }), deps);
    expect(res.status).toBe(200);
    expect(res.body).toBeNull();
    expect(deps.calls).toEqual([expect.objectContaining({ method: "HEAD", pathAndQuery: "/v1/locations" })]);
  });

  it("needs a session, and says why there is none", async () => {
    for (const [status, reason] of [
      ["none", "unauthenticated"],
      ["expired", "session_expired"],
      ["revoked", "session_revoked"],
    ] as const) {
      const deps = fakeDeps(undefined, { status });
      const res = await handleCloudRequest(req("/api/cloud/v1/organizations/projects"), deps);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: "401", reason });
      expect(deps.calls).toHaveLength(0);
    }
  });
});

describe("cross-site mutations", () => {
  const body = JSON.stringify({ organization_id: "o", name: "n" });
  const post = (headers: Record<string, string>) => req("/api/cloud/v1/organizations/projects", { method: "POST", body, headers: { "content-type": "application/json", ...headers } });

  it.each([
    [{ "sec-fetch-site": "cross-site" }],
    [{ "sec-fetch-site": "same-site" }],
    [{ origin: "https://evil.example" }],
    [{ origin: "null" }],
    [{ origin: `http://${HOST}.evil.example` }],
    [{ "sec-fetch-site": "same-origin", origin: "https://evil.example" }],
  ])("refuses %o with 403", async (headers) => {
    const deps = fakeDeps();
    const res = await handleCloudRequest(post(headers), deps);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "403" });
    expect(deps.calls).toHaveLength(0);
  });

  it.each([[{ "sec-fetch-site": "same-origin", origin: `http://${HOST}` }], [{ "sec-fetch-site": "none" }], [{}]])("forwards %o", async (headers) => {
    const deps = fakeDeps();
    expect((await handleCloudRequest(post(headers), deps)).status).toBe(200);
    expect(deps.calls[0]).toMatchObject({ method: "POST", init: { body, headers: { "content-type": "application/json" } } });
  });

  it("refuses a page of the same host over plain HTTP where the console is served over HTTPS", () => {
    const from = (origin: string, headers: Record<string, string> = {}) =>
      req("/api/cloud/v1/organizations/projects", { method: "POST", headers: { origin, ...headers } });
    expect(isCrossSiteMutation(from(`http://${HOST}`), `https://${HOST}`)).toBe(true);
    expect(isCrossSiteMutation(from(`http://${HOST}`, { "x-forwarded-proto": "https" }))).toBe(true);
    expect(isCrossSiteMutation(from(`https://${HOST}`), `https://${HOST}`)).toBe(false);
    expect(isCrossSiteMutation(from(`http://${HOST}`))).toBe(false); // served over HTTP: its own origin
  });

  it("refuses a POST, PUT or PATCH that does not say it is JSON, with a body or without (a form another site submits)", async () => {
    for (const [method, path] of [
      ["POST", "/api/cloud/v1/ccr/tokens"],
      ["PUT", "/api/cloud/v1/organizations/projects?project_id=p-1"],
      ["PATCH", "/api/cloud/v1/organizations/o-1/scim/integrations/i-1"],
    ] as const) {
      for (const headers of [{ "content-type": "text/plain" }, {}] as Array<Record<string, string>>) {
        const deps = fakeDeps();
        const res = await handleCloudRequest(req(path, { method, headers }), deps);
        expect(res.status, `${method} ${JSON.stringify(headers)}`).toBe(415);
        expect(deps.calls).toHaveLength(0);
      }
    }
    // A DELETE carries no body: it needs no type (and no form can send one).
    const deps = fakeDeps();
    expect((await handleCloudRequest(req("/api/cloud/v1/organizations/projects/p-1", { method: "DELETE" }), deps)).status).toBe(200);
  });

  it("reads are not mutations", () => {
    expect(isCrossSiteMutation(req("/api/cloud/v1/locations", { headers: { "sec-fetch-site": "cross-site" } }))).toBe(false);
  });
});

describe("bodies and answers", () => {
  it("refuses bodies over the limit and non-JSON bodies", async () => {
    const deps = fakeDeps();
    const big = await handleCloudRequest(
      req("/api/cloud/v1/organizations/projects", { method: "POST", body: JSON.stringify({ name: "x".repeat(2000) }), headers: { "content-type": "application/json" } }),
      deps,
    );
    expect(big.status).toBe(413);
    const form = await handleCloudRequest(req("/api/cloud/v1/organizations/projects", { method: "POST", body: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } }), deps);
    expect(form.status).toBe(415);
    // Latin-1 "Café": forwarded decoded, its é would be stored as U+FFFD.
    const latin1 = Buffer.concat([Buffer.from('{"name":"Caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const notUtf8 = await handleCloudRequest(req("/api/cloud/v1/organizations/projects", { method: "POST", body: latin1, headers: { "content-type": "application/json" } }), deps);
    expect(notUtf8.status).toBe(400);
    expect(await notUtf8.json()).toMatchObject({ message: "body: is not valid UTF-8" });
    expect(deps.calls).toHaveLength(0);
  });

  it("passes the gateway's status and error body through", async () => {
    const error = { code: "403", message: "not an owner", error_id: "r-1", reason: "permission_denied" };
    const deps = fakeDeps(() => Response.json(error, { status: 403, headers: { "x-request-id": "r-1", "set-cookie": "a=b" } }));
    const res = await handleCloudRequest(req("/api/cloud/v1/organizations/projects"), deps);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual(error);
    expect(res.headers.get("x-request-id")).toBe("r-1");
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("answers what came as a page (a proxy's HTML error page before a remote gateway) under a policy that runs none of it", async () => {
    const deps = fakeDeps(() => new Response("<script>alert(document.cookie)</script>", { status: 502, headers: { "content-type": "text/html" } }));
    const res = await handleCloudRequest(req("/api/cloud/v1/organizations/projects"), deps);
    expect(res.status).toBe(502);
    expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const inline = await handleCloudRequest(
      req("/api/cloud/v1/organizations/projects"),
      fakeDeps(() => new Response("<p>x</p>", { status: 502, headers: { "content-type": "text/html", "content-disposition": "inline" } })),
    );
    expect(inline.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
  });

  it("streams CSV with a download file name", async () => {
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode("date,cost\n"));
        controller.enqueue(encoder.encode("2030-01-01,1.00\n"));
        controller.close();
      },
    });
    const deps = fakeDeps(() => new Response(stream, { headers: { "content-type": "text/csv; charset=utf-8" } }));
    // export-productline is not declared yet by every gateway build: check the name on its own, the stream on a declared path.
    const res = await handleCloudRequest(req("/api/cloud/v1/locations"), deps);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="locations-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(await res.text()).toBe("date,cost\n2030-01-01,1.00\n");
    expect(downloadName("/v1/organizations/o/billing/export-productline", "text/csv", new Date("2030-05-01T00:00:00Z"))).toBe("export-productline-2030-05-01.csv");
  });

  it("answers 502 when the gateway cannot be reached", async () => {
    const deps = fakeDeps(() => {
      throw new Error("connect ECONNREFUSED");
    });
    const res = await handleCloudRequest(req("/api/cloud/v1/locations"), deps);
    expect(res.status).toBe(502);
  });
});

describe("through the real gateway", () => {
  let bed: ConsoleTestbed;
  beforeAll(async () => {
    bed = await createConsoleTestbed();
  });
  afterAll(() => bed.close());

  function realDeps(s: ConsoleSession): BffDeps {
    return { session: async () => ({ status: "active", session: s }), fetch: cloudFetch, maxBodyBytes: 1 << 20, trustedProxyHops: 1 };
  }

  it("signs with the session's key, marks the call as the console's, and never shows the secret", async () => {
    const owner = bed.t.demo.owner;
    const s = await signInWithKey({ credentials: { accessKeyId: owner.access_key_id, secretKey: owner.secret_key }, clientIp: "203.0.113.60", rateLimited: false });
    const list = await handleCloudRequest(req("/api/cloud/v1/organizations/projects?skip_loading_project_resources=true"), realDeps(s));
    expect(list.status).toBe(200);
    const text = await list.text();
    expect(JSON.parse(text).items.length).toBeGreaterThan(0);
    expect(text).not.toContain(owner.secret_key);

    const created = await handleCloudRequest(
      req("/api/cloud/v1/organizations/projects", {
        method: "POST",
        body: JSON.stringify({ organization_id: bed.t.demo.organization_id, name: "from-the-console" }),
        headers: { "content-type": "application/json", "sec-fetch-site": "same-origin", "x-forwarded-for": "198.51.100.77" },
      }),
      realDeps(s),
    );
    expect(created.status).toBe(200);
    const audit = await bed.t.gateway.store.db.execute<{ surface: string; client_ip: string }>(
      // The audit entry of that call: filed as the console's, with the browser's address.
      (await import("drizzle-orm")).sql`select surface, client_ip from audit_log where action_detail ilike '%project%' order by start_time desc limit 1`,
    );
    const rows = ((audit as unknown as { rows?: unknown[] }).rows ?? (audit as unknown as unknown[])) as Array<{ surface: string; client_ip: string }>;
    expect(rows[0]).toEqual({ surface: "console", client_ip: "198.51.100.77" });
  });

  it("passes a gateway 400 through with the field named", async () => {
    const owner = bed.t.demo.owner;
    const s = await signInWithKey({ credentials: { accessKeyId: owner.access_key_id, secretKey: owner.secret_key }, clientIp: "203.0.113.61", rateLimited: false });
    const res = await handleCloudRequest(
      req("/api/cloud/v1/organizations/projects", { method: "POST", body: JSON.stringify({ organization_id: bed.t.demo.organization_id, name: "" }), headers: { "content-type": "application/json" } }),
      realDeps(s),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "400", reason: "bad_request", message: expect.stringContaining("name") });
  });

  it("a key revoked mid-session ends the session: 401 session_revoked, the secret dropped", async () => {
    const member = bed.t.demo.member;
    const s = await signInWithKey({ credentials: { accessKeyId: member.access_key_id, secretKey: member.secret_key }, clientIp: "203.0.113.62", rateLimited: false });
    expect((await handleCloudRequest(req("/api/cloud/v1/iam/roles"), realDeps(s))).status).toBe(200);
    await bed.t.gateway.store.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, member.access_key_id));
    try {
      // /iam/roles declares no 401: the gateway answers 403 "unauthenticated", which still ends the session.
      const res = await handleCloudRequest(req("/api/cloud/v1/iam/roles"), realDeps(s));
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ reason: "session_revoked", message: "Your API key was revoked or expired; sign in again" });
      const [row] = await bed.db.select().from(sessions).where(eq(sessions.id, s.sessionId));
      expect(row).toMatchObject({ endedReason: "revoked", secretCiphertext: "" });
      // And nothing more goes out under it.
      expect((await handleCloudRequest(req("/api/cloud/v1/locations"), realDeps(s))).status).toBe(401);
    } finally {
      await bed.t.gateway.store.db.update(apiKeys).set({ revokedAt: null }).where(eq(apiKeys.id, member.access_key_id));
    }
  });

  it("a signature another replica of the console made alike (same key, path and millisecond) is signed anew, the session kept", async () => {
    const owner = bed.t.demo.owner;
    const s = await signInWithKey({ credentials: { accessKeyId: owner.access_key_id, secretKey: owner.secret_key }, clientIp: "203.0.113.63", rateLimited: false });
    const path = "/v1/organizations/projects";
    // The other replica's call, signed at a millisecond this process has not signed at yet, with the first signature
    // this process would make at it (its own calls are told apart, another's are not).
    const at = new Date(Date.now() + 5_000);
    at.setUTCMilliseconds(123);
    const { sign, authorizationHeader, TIMESTAMP_HEADER } = await import("@/lib/signing");
    const timestamp = at.toISOString();
    const signature = sign(owner.secret_key, { method: "POST", path, query: "", timestamp });
    const other = await bed.t.gateway.app.request(`http://gateway.test${path}`, {
      method: "POST",
      headers: { [TIMESTAMP_HEADER]: timestamp, authorization: authorizationHeader(owner.access_key_id, signature), "content-type": "application/json" },
      body: JSON.stringify({ organization_id: bed.t.demo.organization_id, name: "from-another-replica" }),
    });
    expect(other.status).toBe(200);
    vi.useFakeTimers({ now: at, toFake: ["Date"] });
    let created: Response;
    try {
      created = await handleCloudRequest(
        req("/api/cloud/v1/organizations/projects", {
          method: "POST",
          body: JSON.stringify({ organization_id: bed.t.demo.organization_id, name: "from-this-replica" }),
          headers: { "content-type": "application/json", "sec-fetch-site": "same-origin" },
        }),
        realDeps(s),
      );
    } finally {
      vi.useRealTimers();
    }
    expect(created.status).toBe(200);
    const [row] = await bed.db.select().from(sessions).where(eq(sessions.id, s.sessionId));
    expect(row?.endedReason).toBeNull();
    const names = (await bed.t.gateway.store.db.select({ name: projects.name }).from(projects)).map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(["from-another-replica", "from-this-replica"]));
  });

  /** Every line this test file logged (vitest.setup.ts records them). */
  const logged = () => (globalThis as { [key: symbol]: { text: string[] } | undefined })[Symbol.for("stratus.test.logRecord")]?.text ?? [];

  /** Has the store refuse every change of the vault's sessions with `code`: 57P01 (the server shut down, as in a failover) or XX000 (it broke). */
  async function endingSessionsFails(code: "57P01" | "XX000"): Promise<void> {
    const db = bed.t.gateway.store.db;
    await db.execute(sql.raw(`create or replace function zz_store_fails() returns trigger language plpgsql as $$ begin raise exception 'the disk broke' using errcode = '${code}'; end $$`));
    await db.execute(sql.raw(`create or replace trigger zz_store_fails before update on console_sessions for each statement execute function zz_store_fails()`));
  }

  it("answers 503 with Retry-After when the session's lookup finds the store away; another failure a 500, logged without the statement's parameters", async () => {
    const db = bed.t.gateway.store.db;
    const answerFor = async (code: "57P01" | "XX000") => {
      await db.execute(sql.raw(`create or replace function zz_lookup_fails(text) returns int language plpgsql as $$ begin raise exception 'the disk broke' using errcode = '${code}'; end $$`));
      // A lookup whose statement (the session id among its parameters) the store refuses.
      const failingLookup = async (): Promise<SessionState> => {
        await db.execute(sql`select zz_lookup_fails(${"private-session-id-0123"})`);
        throw new Error("the lookup should have failed");
      };
      return handleCloudRequest(req("/api/cloud/v1/organizations/projects"), { session: failingLookup, fetch: cloudFetch, maxBodyBytes: 1 << 20, trustedProxyHops: 1 });
    };
    const away = await answerFor("57P01");
    expect(away.status).toBe(503);
    expect(away.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await away.json()).toMatchObject({ code: "503", reason: "unavailable", message: expect.stringMatching(/try again/) });

    const before = logged().length;
    const broke = await answerFor("XX000");
    expect(broke.status).toBe(500);
    expect(broke.headers.get("retry-after")).toBeNull();
    const body = (await broke.json()) as { code: string; reason: string; error_id: string };
    expect(body).toMatchObject({ code: "500", reason: "internal" });
    const lines = logged().slice(before).filter((line) => line.includes(body.error_id));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("the disk broke");
    expect(lines[0]).toMatch(/\\n\s+at /); // where it was thrown
    expect(lines[0]).not.toMatch(/private-session-id|params:/);
  });

  it("a reset of one's own factors whose ending of the other sessions fails is not answered as done: 503 while the store is away, else 500", async () => {
    const owner = bed.t.demo.owner;
    const s = await signInWithKey({ credentials: { accessKeyId: owner.access_key_id, secretKey: owner.secret_key }, clientIp: "203.0.113.63", rateLimited: false });
    const other = await signInWithKey({ credentials: { accessKeyId: owner.access_key_id, secretKey: owner.secret_key }, clientIp: "203.0.113.64", rateLimited: false });
    const reset = () =>
      handleCloudRequest(
        req(`/api/cloud${operationPath("resetOrganizationPersonMfa", { org_id: bed.t.demo.organization_id, user_id: owner.user_id })}`, {
          method: "DELETE",
          headers: { origin: `http://${HOST}`, "sec-fetch-site": "same-origin" },
        }),
        realDeps(s),
      );
    try {
      await endingSessionsFails("57P01");
      const away = await reset();
      expect(away.status).toBe(503);
      expect(away.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(await away.json()).toMatchObject({ reason: "unavailable" });

      await endingSessionsFails("XX000");
      const broke = await reset();
      expect(broke.status).toBe(500);
      expect(await broke.json()).toMatchObject({ reason: "internal", error_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      const [kept] = await bed.db.select().from(sessions).where(eq(sessions.id, other.sessionId));
      expect(kept?.endedReason).toBeNull();
    } finally {
      await bed.t.gateway.store.db.execute(sql.raw(`drop trigger if exists zz_store_fails on console_sessions`));
    }
    // Sent again once the store is back, it ends them.
    expect((await reset()).status).toBe(200);
    const [ended] = await bed.db.select().from(sessions).where(eq(sessions.id, other.sessionId));
    expect(ended?.endedReason).toBe("revoked");
  });
});
