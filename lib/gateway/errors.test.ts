import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { fromDatabaseError, isStoreUnavailable, logCertificateRefusal, storeCertificateRefusal } from "./errors";
import { createLogger } from "./logger";
import { createTestGateway, opPath } from "./testing";

/** What the store says while it is away (a failover, a restart) and how node-postgres and the ORM wrap it. */
function pgError(code: string, message = "server error"): Error {
  return Object.assign(new Error(message), { code });
}
const wrapped = (cause: unknown) => Object.assign(new Error("Failed query: insert into …"), { cause });

describe("store unavailability", () => {
  it.each([
    ["a connection refused", Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })],
    ["a connection reset", Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })],
    ["a connection ended mid-query", new Error("Connection terminated unexpectedly")],
    ["a broken pooled client", new Error("Client has encountered a connection error and is not queryable")],
    ["no free connection in time", new Error("timeout exceeded when trying to connect")],
    ["an admin shutdown", pgError("57P01", "terminating connection due to administrator command")],
    ["a crash shutdown", pgError("57P02")],
    ["a server starting up", pgError("57P03", "the database system is starting up")],
    ["a read-only standby", pgError("25006", "cannot execute INSERT in a read-only transaction")],
    ["a connection exception", pgError("08006")],
    ["too many connections", pgError("53300")],
    ["no writable host in the list", pgError("STRATUS_NO_USABLE_HOST", "no writable host among …")],
  ])("maps %s, bare or wrapped by the ORM, to 503", (_name, error) => {
    expect(isStoreUnavailable(error)).toBe(true);
    expect(isStoreUnavailable(wrapped(error))).toBe(true);
    expect(fromDatabaseError(wrapped(error))?.status).toBe(503);
  });

  it.each([
    ["a deadlock", "40P01"],
    ["a serialization failure", "40001"],
  ])("answers %s with a concurrent request as a 503 to retry, not a 500", (_name, code) => {
    const error = fromDatabaseError(wrapped(pgError(code)));
    expect(error?.status).toBe(503);
    expect(error?.message).toMatch(/retry/);
  });

  it.each([
    ["a unique clash", pgError("23505")],
    ["a syntax error", pgError("42601")],
    ["a statement with more parameters than the protocol counts (a protocol violation)", pgError("08P01", "bind message supplies 0 parameters, but prepared statement \"\" requires 65536")],
    ["a plain bug", new TypeError("x is undefined")],
    ["nothing", undefined],
  ])("leaves %s alone", (_name, error) => {
    expect(isStoreUnavailable(error)).toBe(false);
    expect(isStoreUnavailable(wrapped(error))).toBe(false);
  });
});

describe("a store whose server is not trusted", () => {
  it.each([
    ["a certificate naming another host", Object.assign(new Error("Hostname/IP does not match certificate's altnames: IP: 127.0.0.1 is not in the cert's list: 127.0.0.9"), { code: "ERR_TLS_CERT_ALTNAME_INVALID" }), "ERR_TLS_CERT_ALTNAME_INVALID"],
    ["a certificate of an unknown CA", Object.assign(new Error("self-signed certificate in certificate chain"), { code: "SELF_SIGNED_CERT_IN_CHAIN" }), "SELF_SIGNED_CERT_IN_CHAIN"],
    ["an expired certificate", Object.assign(new Error("certificate has expired"), { code: "CERT_HAS_EXPIRED" }), "CERT_HAS_EXPIRED"],
    ["a server that takes no TLS", new Error("The server does not support SSL connections"), "no TLS"],
  ])("answers %s 503 (never 500), and says which refusal", (_name, error, reason) => {
    expect(fromDatabaseError(wrapped(error))?.status).toBe(503);
    expect(storeCertificateRefusal(wrapped(error))).toBe(reason);
    const lines: string[] = [];
    logCertificateRefusal(createLogger("info", (line) => lines.push(line)), wrapped(error), "req-1");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("the store's TLS certificate was refused");
    expect(lines[0]).toContain(reason);
    expect(lines[0]).not.toContain("Failed query");
  });

  it("says nothing of a store that is only away", () => {
    const lines: string[] = [];
    logCertificateRefusal(createLogger("info", (line) => lines.push(line)), wrapped(pgError("57P01")), "req-1");
    expect(storeCertificateRefusal(wrapped(pgError("57P01")))).toBeNull();
    expect(lines).toEqual([]);
  });
});

describe("a statement stopped on the server", () => {
  it("by the deadline is a 504; by a cancel, a 503 to retry; judged by the driver's message, not the request's data", () => {
    expect(fromDatabaseError(wrapped(pgError("57014", "canceling statement due to statement timeout")))?.status).toBe(504);
    expect(fromDatabaseError(wrapped(pgError("57014", "canceling statement due to user request")))?.status).toBe(503);
    expect(fromDatabaseError(pgError("57014", "canceling statement due to user request"))?.status).toBe(503);
    // The wrapper's message repeats the statement's parameters: a value a caller sent cannot make a timeout a cancel.
    const carrying = Object.assign(new Error("Failed query: select …\nparams: canceling statement due to user request"), {
      cause: pgError("57014", "canceling statement due to statement timeout"),
    });
    expect(fromDatabaseError(carrying)?.status).toBe(504);
  });

  it("before the request's deadline is a cancel in any language; after it, the deadline unless the text says cancel", () => {
    const german = pgError("57014", "storniere Anfrage wegen Benutzeranforderung");
    expect(fromDatabaseError(wrapped(german), { elapsedMs: 1_200, deadlineMs: 30_000 })?.status).toBe(503);
    expect(fromDatabaseError(wrapped(german), { elapsedMs: 30_004, deadlineMs: 30_000 })?.status).toBe(504);
    expect(fromDatabaseError(wrapped(german))?.status).toBe(504);
    const timedOut = pgError("57014", "canceling statement due to statement timeout");
    expect(fromDatabaseError(wrapped(timedOut), { elapsedMs: 30_001, deadlineMs: 30_000 })?.status).toBe(504);
    const cancelled = pgError("57014", "canceling statement due to user request");
    expect(fromDatabaseError(wrapped(cancelled), { elapsedMs: 45_000, deadlineMs: 30_000 })?.status).toBe(503);
  });
});

describe("a time the store cannot hold", () => {
  it.each([
    ["a field overflow", "22008"],
    ["an offset out of range", "22009"],
  ])("that no validation caught (%s) is a 400, not a 500", (_name, code) => {
    const error = fromDatabaseError(wrapped(pgError(code, "time zone displacement out of range")));
    expect(error?.status).toBe(400);
    expect(error?.message).toMatch(/^request: a time falls outside/);
  });
});

describe("unique clashes", () => {
  it.each([
    ["projects_org_name_uq", "body.name"],
    ["role_bindings_uq", "bindings_to_create"],
    ["scim_group_mappings_uq", "body.mappings"],
  ])("answers a clash on %s with a 400 naming %s", (constraint, field) => {
    const error = fromDatabaseError(wrapped(Object.assign(pgError("23505"), { constraint })));
    expect(error?.status).toBe(400);
    expect(error?.message.startsWith(`${field}: `)).toBe(true);
  });
});

describe("a foreign key broken by a concurrent request", () => {
  it("is a 409 conflict (a resource referred to was removed meanwhile), not a 500", () => {
    const error = fromDatabaseError(wrapped(Object.assign(pgError("23503"), { constraint: "scim_groups_integration_id_fk" })));
    expect(error?.status).toBe(409);
    expect(error?.reason).toBe("conflict");
    expect(error?.message).toMatch(/removed meanwhile/);
  });
});

describe("the store refusing what the request asked", () => {
  it("a broken foreign key: 409 on both the API and SCIM; a protocol violation: a 500, not a 503 to retry", async () => {
    const t = await createTestGateway();
    try {
      const db = t.gateway.store.db;
      // A statement with more bind parameters than the wire protocol counts (16 bits): refused with 08P01, as often as it is sent.
      const tooMany = sql`select 1 where 1 in (${sql.join(Array.from({ length: 65_536 }, (_, i) => sql`${i}`), sql`, `)})`;
      const refused = await db.execute(tooMany).then(() => undefined, (e: unknown) => e);
      expect((refused as { cause?: { code?: string } }).cause?.code).toBe("08P01");
      expect(isStoreUnavailable(refused)).toBe(false);
      expect(fromDatabaseError(refused)?.status).not.toBe(503);

      const integration = await t.json<{ api_key_info: { api_key: string } }>("owner", "POST", opPath("createSCIMIntegration", { org_id: t.demo.organization_id }), {
        body: { name: "Okta", identity_provider: "okta", token: { alias: "okta-token", expires_at: new Date(Date.now() + 86_400_000).toISOString() } },
      });
      expect(integration.status).toBe(200);
      const scimUser = () =>
        t.gateway.app.request("http://gateway.test/scim/v2/Users", {
          method: "POST",
          headers: { authorization: `Bearer ${integration.body.api_key_info.api_key}`, "content-type": "application/scim+json" },
          body: JSON.stringify({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: `refused.${crypto.randomUUID()}@example.com` }),
        });
      const refuseWith = async (code: string) => {
        await db.execute(sql.raw(`create or replace function zz_refuse() returns trigger language plpgsql as $$ begin raise exception 'refused' using errcode = '${code}'; end $$`));
      };
      await refuseWith("23503");
      await db.execute(sql.raw(`create trigger zz_refuse before insert on projects for each row execute function zz_refuse()`));
      await db.execute(sql.raw(`create trigger zz_refuse before insert on memberships for each row execute function zz_refuse()`));

      const project = await t.op("owner", "createProject", { body: { organization_id: t.demo.organization_id, name: "refers-to-a-removed-one" } });
      expect(project.status).toBe(409);
      expect(((await project.json()) as { reason: string }).reason).toBe("conflict");
      const scim = await scimUser();
      expect(scim.status).toBe(409);
      expect(((await scim.json()) as { status: string; detail: string })).toMatchObject({ status: "409", detail: expect.stringMatching(/removed meanwhile/) });

      await refuseWith("08P01");
      for (const res of [await t.op("owner", "createProject", { body: { organization_id: t.demo.organization_id, name: "protocol-violation" } }), await scimUser()]) {
        expect(res.status).toBe(500);
        expect(res.headers.get("retry-after")).toBeNull();
      }
    } finally {
      await t.close().catch(() => undefined);
    }
  }, 60_000);
});

describe("the gateway while its store is away", () => {
  it("answers 503 with Retry-After (never 500), and /readyz says unavailable", async () => {
    const t = await createTestGateway();
    try {
      expect((await t.gateway.app.request("/readyz")).status).toBe(200);
      await t.op("owner", "listProjects"); // warm the key cache
      await t.gateway.store.close();
      const res = await t.op("owner", "createProject", { body: { organization_id: t.demo.organization_id, name: "away" } });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(((await res.json()) as { reason: string }).reason).toBe("unavailable");
      const ready = await t.gateway.app.request("/readyz");
      expect(ready.status).toBe(503);
      expect(ready.headers.get("retry-after")).toMatch(/^\d+$/);
    } finally {
      await t.close().catch(() => undefined);
    }
  });
});

/** Every line the gateways of this test file logged (vitest.setup.ts records them). */
const logged = () => (globalThis as { [key: symbol]: { text: string[] } | undefined })[Symbol.for("stratus.test.logRecord")]?.text ?? [];

describe("an unexpected failure of the store", () => {
  it("is a 500 whose log line says what failed and where, but not the statement's parameters (the request's data)", async () => {
    const t = await createTestGateway();
    try {
      const db = t.gateway.store.db;
      await db.execute(sql.raw(`create function zz_fail() returns trigger language plpgsql as $$ begin raise exception 'the disk broke' using errcode = 'XX000'; end $$`));
      await db.execute(sql.raw(`create trigger zz_fail before insert on projects for each row execute function zz_fail()`));
      await db.execute(sql.raw(`create trigger zz_fail before insert on memberships for each row execute function zz_fail()`));
      const integration = await t.json<{ api_key_info: { api_key: string } }>("owner", "POST", opPath("createSCIMIntegration", { org_id: t.demo.organization_id }), {
        body: { name: "Okta", identity_provider: "okta", token: { alias: "okta-token", expires_at: new Date(Date.now() + 86_400_000).toISOString() } },
      });
      expect(integration.status).toBe(200);
      const before = logged().length;

      const project = await t.op("owner", "createProject", { body: { organization_id: t.demo.organization_id, name: "private-project-name" } });
      expect(project.status).toBe(500);
      const scim = await t.gateway.app.request("http://gateway.test/scim/v2/Users", {
        method: "POST",
        headers: { authorization: `Bearer ${integration.body.api_key_info.api_key}`, "content-type": "application/scim+json" },
        body: JSON.stringify({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "private.person@example.com" }),
      });
      expect(scim.status).toBe(500);

      const lines = logged().slice(before).filter((line) => line.includes("unhandled error"));
      expect(lines).toHaveLength(2);
      for (const line of lines) {
        expect(line).toContain("the disk broke");
        expect(line).toMatch(/\\n\s+at /); // where it was thrown
        expect(line).not.toMatch(/private-project-name|private\.person@example\.com|params:/);
      }
    } finally {
      await t.close().catch(() => undefined);
    }
  });
});
