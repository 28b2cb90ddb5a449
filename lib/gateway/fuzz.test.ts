import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestGateway, type TestGateway, type Who } from "./testing";

/**
 * Property tests over every operation of the gateway's own OpenAPI document:
 * random and mutated path params, query values and JSON bodies never give a 5xx,
 * a 400 names what was wrong, and every status answered is one the operation declares.
 */

interface Operation {
  method: string;
  path: string;
  queryNames: string[];
  pathNames: string[];
  hasBody: boolean;
  /** The statuses the document declares; "default" declares any. */
  statuses: Set<string>;
}

const declares = (op: Operation, status: number) => op.statuses.has(String(status)) || op.statuses.has("default");

let t: TestGateway;
let operations: Operation[] = [];

beforeAll(async () => {
  t = await createTestGateway();
  const res = await t.gateway.app.request("http://gateway.test/v1/openapi.json");
  const doc = (await res.json()) as {
    paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }>; requestBody?: unknown; responses: Record<string, unknown> }>>;
  };
  operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      queryNames: (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
      pathNames: (op.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name),
      hasBody: op.requestBody !== undefined,
      statuses: new Set(Object.keys(op.responses)),
    })),
  );
});
afterAll(() => t.close());

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.constantFrom("", " ", "null", "-1", "0", "1e309", "NaN", "true", "../../etc/passwd", "%00", "' or 1=1 --", "\u0000", "😀".repeat(50), "a".repeat(5000)),
  fc.uuid().map(String),
);

const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    nasty,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("name", "organization_id", "bindings_to_create", "intended_methods", "alias", "expire_at", "status", "issuer_uri", "email_domains", "client_id")), tie("value"), { maxKeys: 5 }),
  ),
})).value;

function fillPath(path: string, values: string[]): string {
  let i = 0;
  return path.replace(/\{[^}]+\}/g, () => encodeURIComponent(values[i++ % values.length] ?? "x"));
}

describe("fuzzing every operation", () => {
  it("found the operations to fuzz", () => {
    // The reference has 45 operations; the gateway adds the project VM listing.
    expect(operations.length).toBeGreaterThanOrEqual(46);
  });

  it("never answers 5xx; every 400 names a field", async () => {
    const failures: string[] = [];
    for (const op of operations) {
      await fc.assert(
        fc.asyncProperty(
          fc.array(nasty, { minLength: 1, maxLength: 3 }),
          fc.array(fc.tuple(fc.oneof(fc.constantFrom(...(op.queryNames.length ? op.queryNames : ["q"])), fc.string({ maxLength: 8 })), nasty), { maxLength: 4 }),
          fc.option(jsonValue, { nil: undefined }),
          fc.boolean(),
          async (pathValues, query, body, realOrg) => {
            const values = realOrg ? [t.demo.organization_id, ...pathValues] : pathValues;
            const path = fillPath(op.path, values);
            const res = await t.call("owner", op.method, path, {
              query,
              ...(op.hasBody && body !== undefined ? { rawBody: JSON.stringify(body) } : {}),
            });
            const text = await res.text();
            if (res.status >= 500) failures.push(`${op.method} ${path} → ${res.status} ${text.slice(0, 200)}`);
            else if (!declares(op, res.status)) failures.push(`${op.method} ${path} → ${res.status}, not declared: ${text.slice(0, 200)}`);
            if (res.status === 400) {
              const message = (JSON.parse(text) as { message?: string }).message ?? "";
              if (!/[\w\]]: /.test(message)) failures.push(`${op.method} ${path} → 400 without a field: ${message}`);
            }
            return failures.length === 0;
          },
        ),
        { numRuns: 12, seed: 20_261_121 },
      ).catch(() => undefined);
      if (failures.length > 0) break;
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it("answers the gateway's own checks only with statuses the operation declares", async () => {
    // Each check in turn, on every operation: a path value the store cannot keep, a caller outside the organization,
    // ids that name nothing, and query values that fail validation (a NUL, too long, not a boolean or a date).
    const org = t.demo.organization_id;
    const isOrg = (name: string) => name === "org_id" || name === "organization_id";
    const fill = (path: string, value: (name: string) => string) => path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(value(name)));
    const someId = (name: string) => (isOrg(name) ? org : randomUUID());
    const undeclared: string[] = [];
    for (const op of operations) {
      const body = op.hasBody ? { body: {} } : {};
      const calls: Array<[Who, string, Array<[string, string]>]> = [
        ...op.pathNames.map((nul): [Who, string, Array<[string, string]>] => ["owner", fill(op.path, (name) => (name === nul ? "\u0000" : someId(name))), []]),
        ["outsider", fill(op.path, someId), []],
        ["owner", fill(op.path, someId), []],
        ...op.queryNames.flatMap((name) =>
          ["\u0000", "x".repeat(600), "maybe"].map((value): [Who, string, Array<[string, string]>] => ["owner", fill(op.path, someId), [[name, value]]]),
        ),
      ];
      for (const [who, path, query] of calls) {
        const res = await t.call(who, op.method, path, { query, ...body });
        if (!declares(op, res.status)) undeclared.push(`${op.method} ${op.path} as ${who} (${path}${query.length ? ` ?${query[0]![0]}` : ""}) → ${res.status}: ${(await res.text()).slice(0, 160)}`);
      }
    }
    expect(undeclared).toEqual([]);
  }, 120_000);

  it("names a field of the wrong type as such, and a missing one as required", async () => {
    const wrong = await t.opJson<{ message: string }>("owner", "createProject", { body: { organization_id: t.demo.organization_id, name: 5 } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/^body\.name: /);
    expect(wrong.body.message).not.toContain("is required");
    const missing = await t.opJson<{ message: string }>("owner", "createProject", { body: { organization_id: t.demo.organization_id } });
    expect(missing.body.message).toBe("body.name: is required");
    // The same for the fields that must be strings: an organization_id, a project_id in the query, an invitee's e-mail.
    for (const organizationId of [5, ["a"], null]) {
      const res = await t.opJson<{ message: string }>("owner", "createProject", { body: { organization_id: organizationId, name: "typed" } });
      expect(res.body.message, JSON.stringify(organizationId)).toBe("body.organization_id: must be a string");
    }
    const noOrganization = await t.opJson<{ message: string }>("owner", "createProject", { body: { name: "typed" } });
    expect(noOrganization.body.message).toBe("body.organization_id: is required");
    const twice = await t.opJson<{ message: string }>("owner", "updateProject", { query: [["project_id", "a"], ["project_id", "b"]], body: { name: "typed" } });
    expect(twice.status).toBe(400);
    expect(twice.body.message).toMatch(/^query\.project_id: /);
    expect(twice.body.message).not.toContain("is required");
  });

  it("a malformed JSON body is a 400 naming the body", async () => {
    const res = await t.op("owner", "createProject", { rawBody: "{not json" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/^body/);
  });

  it("a body of the wrong content type is a 400, not a 415 or 500", async () => {
    const res = await t.op("owner", "createProject", { rawBody: "name=x", headers: { "content-type": "text/plain" } });
    expect(res.status).toBe(400);
  });

  it("refuses bodies over the size limit with 413", async () => {
    const res = await t.op("owner", "createProject", {
      rawBody: JSON.stringify({ organization_id: t.demo.organization_id, name: "x".repeat(2 * 1024 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: "413", reason: "payload_too_large" });
  });

  it("deeply nested JSON is refused cleanly", async () => {
    const deep = "[".repeat(5000) + "]".repeat(5000);
    const res = await t.op("owner", "createProject", { rawBody: deep });
    expect(res.status).toBe(400);
  });
});
