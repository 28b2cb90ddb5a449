import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "./app";
import { createLogger } from "./logger";
import type { Database } from "./store/client";
import { StoreChanges } from "@/lib/db/changes";
import { ReadCache } from "@/lib/db/read-cache";

/**
 * The gateway's OpenAPI document against the upstream reference: every
 * operation, parameter and declared status of the reference, and every field the
 * reference marks required in a response, must be in the gateway's document.
 */
const REFERENCE = path.join(process.cwd(), "../shared/reference/upstream-openapi-v1.subset.json");
const present = existsSync(REFERENCE);
if (!present) console.warn(`openapi.test: reference document not found at ${REFERENCE}; the comparison is skipped.`);

type Schema = {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  example?: unknown;
};
interface RefParameter {
  name: string;
  in: string;
}
interface RefResponse {
  $ref?: string;
  schema?: Schema;
  headers?: Record<string, unknown>;
}
interface RefOperation {
  operationId: string;
  parameters?: RefParameter[];
  responses: Record<string, RefResponse>;
  produces?: string[];
}
interface Reference {
  paths: Record<string, Record<string, RefOperation>>;
  definitions: Record<string, Schema>;
  responses: Record<string, RefResponse>;
}
interface GatewayOperation {
  operationId?: string;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
interface GatewayDocument {
  paths: Record<string, Record<string, GatewayOperation> & { parameters?: Array<{ name: string; in: string }> }>;
  components: { schemas: Record<string, Schema> };
}

const reference: Reference | null = present ? (JSON.parse(readFileSync(REFERENCE, "utf8")) as Reference) : null;
const METHODS = ["get", "put", "post", "delete", "patch"];
const operations = reference
  ? Object.entries(reference.paths).flatMap(([p, ops]) =>
      Object.entries(ops)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, op]) => ({ label: `${method.toUpperCase()} ${p}`, path: p, method, op })),
    )
  : [];

let doc: GatewayDocument;
beforeAll(async () => {
  // The document comes from the routes alone: no store is opened (one that were touched would throw).
  const app = createApp({
    db: {} as Database,
    reads: new ReadCache(new StoreChanges()),
    masterKey: randomBytes(32),
    skewSeconds: 300,
    logger: createLogger("silent"),
    maxBodyBytes: 1024 * 1024,
    requestTimeoutMs: 30_000,
    trustedProxyHops: 0,
  });
  const res = await app.request("http://gateway.test/v1/openapi.json");
  expect(res.status).toBe(200);
  doc = (await res.json()) as GatewayDocument;
});

function resolveReference(schema: Schema | undefined): Schema | undefined {
  let s = schema;
  for (let depth = 0; s?.$ref && depth < 20; depth++) {
    const [, kind, name] = /^#\/(definitions|responses)\/(.+)$/.exec(s.$ref) ?? [];
    s = kind === "responses" ? (reference?.responses[name ?? ""]?.schema ?? undefined) : reference?.definitions[name ?? ""];
  }
  return s;
}

function resolveGateway(schema: Schema | undefined): Schema | undefined {
  let s = schema;
  for (let depth = 0; s?.$ref && depth < 20; depth++) s = doc.components.schemas[s.$ref.replace("#/components/schemas/", "")];
  const parts = [...(s?.allOf ?? []), ...(s?.anyOf ?? []), ...(s?.oneOf ?? [])].map(resolveGateway).filter((x): x is Schema => !!x);
  if (s && parts.length) {
    return { ...s, properties: Object.assign({}, s.properties, ...parts.map((p) => p.properties ?? {})), items: s.items ?? parts.find((p) => p.items)?.items };
  }
  return s;
}

/** Every required field of the reference schema, at any depth, that the gateway's schema lacks. */
function missingFields(refSchema: Schema | undefined, gwSchema: Schema | undefined, at: string, seen = new Set<Schema>()): string[] {
  const ref = resolveReference(refSchema);
  const gw = resolveGateway(gwSchema);
  if (!ref || seen.has(ref)) return [];
  seen.add(ref);
  if (ref.items) return missingFields(ref.items, gw?.items, `${at}[]`, seen);
  const missing: string[] = [];
  for (const name of ref.required ?? []) {
    if (!gw?.properties?.[name]) missing.push(`${at}.${name}`);
  }
  for (const [name, prop] of Object.entries(ref.properties ?? {})) {
    if (gw?.properties?.[name]) missing.push(...missingFields(prop, gw.properties[name], `${at}.${name}`, seen));
  }
  return missing;
}

function gatewayOperation(p: string, method: string): GatewayOperation | undefined {
  return doc.paths[p]?.[method];
}

describe.skipIf(!present)(`the gateway's OpenAPI document covers the reference (${REFERENCE})`, () => {
  it("has reference operations to compare", () => {
    expect(operations.length).toBeGreaterThan(40);
  });

  for (const { label, path: p, method, op } of operations) describe(label, () => {
    it("is an operation of the gateway with the reference's operationId", () => {
      const gw = gatewayOperation(p, method);
      expect(gw, `missing ${method.toUpperCase()} ${p}`).toBeDefined();
      expect(gw?.operationId).toBe(op.operationId);
    });

    it("takes every path and query parameter of the reference", () => {
      const gw = gatewayOperation(p, method);
      const declared = new Set([...(doc.paths[p]?.parameters ?? []), ...(gw?.parameters ?? [])].map((x) => `${x.in}:${x.name}`));
      const wanted = (op.parameters ?? []).filter((x) => x.in === "path" || x.in === "query").map((x) => `${x.in}:${x.name}`);
      expect(wanted.filter((w) => !declared.has(w))).toEqual([]);
    });

    it("declares every status of the reference", () => {
      const gw = gatewayOperation(p, method);
      expect(Object.keys(op.responses).filter((status) => !(status in (gw?.responses ?? {})))).toEqual([]);
    });

    it("answers every response field the reference requires", () => {
      const gw = gatewayOperation(p, method);
      const missing: string[] = [];
      for (const [status, response] of Object.entries(op.responses)) {
        const refResponse = response.$ref ? reference?.responses[response.$ref.replace("#/responses/", "")] : response;
        const content = gw?.responses[status]?.content;
        if (refResponse?.headers && op.produces?.includes("text/csv")) {
          // A CSV answer: the reference lists its columns as headers, in order; the gateway's example shows them.
          // Columns of our own may follow the reference's (a reader by position still finds every one of them).
          const example = content?.["text/csv"]?.schema?.example;
          const header = typeof example === "string" ? example.split("\n")[0] : undefined;
          const columns = header?.split(",") ?? [];
          const wanted = Object.keys(refResponse.headers);
          if (columns.slice(0, wanted.length).join(",") !== wanted.join(",")) missing.push(`${status} text/csv columns (${header ?? "none"})`);
          continue;
        }
        const gwSchema = content?.["application/json"]?.schema;
        missing.push(...missingFields(refResponse?.schema, gwSchema, status));
      }
      expect(missing).toEqual([]);
    });
  });
});

/** The spec's operation tables name each request body by its type ("Schema names ... are the names of request body types"). */
const SPEC = path.join(process.cwd(), "../shared/spec/gateway-interface.md");
const specPresent = existsSync(SPEC);
if (!specPresent) console.warn(`openapi.test: the spec is not at ${SPEC}; the request body names are not compared with it.`);

/** "PATCH /organizations/{organization_id}/mfa" → the body type its row names, from every row of the spec's tables that names one. */
function specBodyNames(text: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const line of text.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    const [, method, p] = cells;
    if (!method || !/^(GET|PUT|POST|PATCH|DELETE)$/.test(method) || !p?.startsWith("/")) continue;
    for (const cell of cells.slice(3)) {
      const named = /^(?:body of type )?([A-Z][A-Za-z0-9]+) \((?:declared not )?required\b/.exec(cell);
      if (named) names.set(`${method} ${p}`, named[1]!);
    }
  }
  return names;
}

describe.skipIf(!specPresent)(`the request body schemas are named as the spec names them (${SPEC})`, () => {
  const named = specPresent ? specBodyNames(readFileSync(SPEC, "utf8")) : new Map<string, string>();

  it("found the spec's body types", () => {
    expect(named.get("PATCH /organizations/{organization_id}/mfa")).toBe("OrganizationsMFAServiceUpdateOrganizationMFABody");
    expect(named.size).toBeGreaterThanOrEqual(10);
  });

  it("names each operation's JSON body schema with the spec's type name", () => {
    const wrong: string[] = [];
    for (const [label, name] of named) {
      const [method, p] = label.split(" ") as [string, string];
      const ref = gatewayOperation(p, method.toLowerCase())?.requestBody?.content?.["application/json"]?.schema?.$ref;
      if (ref !== `#/components/schemas/${name}`) wrong.push(`${label}: ${ref ?? "no body schema"}, the spec names ${name}`);
    }
    expect(wrong).toEqual([]);
  });
});

/**
 * The statuses the gateway's own checks answer, declared by every operation that can meet them: the app's error handler
 * turns only an undeclared 401 into a declared 403, and any other undeclared status would reach clients unannounced.
 * An operation with a `default` response declares every status. Where an operation declares a status the upstream's
 * does not, compat.test.ts's allow-list says why.
 */
describe("every operation declares the statuses of the gateway's own checks", () => {
  const ORGANIZATION_IDS = new Set(["org_id", "organization_id"]);
  const all = () =>
    Object.entries(doc.paths).flatMap(([p, item]) =>
      METHODS.flatMap((method) => {
        const op = item[method];
        if (!op) return [];
        const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].filter((x) => x.in === "path" || x.in === "query");
        return [{ label: `${method.toUpperCase()} ${p}`, op, params, declares: (status: number) => String(status) in op.responses || "default" in op.responses }];
      }),
    );

  it("finds the operations", () => {
    expect(all().length).toBeGreaterThanOrEqual(47);
  });

  // zod validates every path and query parameter and every body, and the router refuses any string the store cannot
  // keep (a NUL, half a surrogate pair) with a 400 naming it: whatever takes input can answer 400.
  it("400 wherever a path or query parameter or a body is validated", () => {
    const undeclared = all()
      .filter(({ op, params }) => params.length > 0 || op.requestBody !== undefined)
      .filter(({ declares }) => !declares(400))
      .map(({ label, params }) => `${label} (${params.map((x) => `${x.in}.${x.name}`).join(", ") || "body"})`);
    expect(undeclared).toEqual([]);
  });

  // The spec's rule: an organization's data is for its members (some operations, its owners only), else 403.
  it("403 wherever an organization is named, by path or by org_id", () => {
    const undeclared = all()
      .filter(({ params }) => params.some((x) => ORGANIZATION_IDS.has(x.name)))
      .filter(({ declares }) => !declares(403))
      .map(({ label }) => label);
    expect(undeclared).toEqual([]);
  });

  // A path id of anything else (a project, a person, an integration, a key…) may name nothing, or nothing the caller may see.
  it("404 wherever the path names a resource other than an organization", () => {
    const undeclared = all()
      .filter(({ params }) => params.some((x) => x.in === "path" && !ORGANIZATION_IDS.has(x.name)))
      .filter(({ declares }) => !declares(404))
      .map(({ label }) => label);
    expect(undeclared).toEqual([]);
  });
});
