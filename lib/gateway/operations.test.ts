import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { matchOperation, operations } from "@/lib/contract/operations";
import { createApi } from "./app";

interface RouteDefinition {
  type: string;
  route?: { method: string; path: string; operationId?: string };
}

function gatewayRoutes(): Array<{ id: string; method: string; path: string }> {
  const api = createApi();
  return (api.openAPIRegistry.definitions as RouteDefinition[])
    .filter((d) => d.type === "route" && d.route)
    .map((d) => ({ id: d.route!.operationId ?? "", method: d.route!.method, path: d.route!.path }));
}

describe("the gateway's routes", () => {
  it("are exactly the operations table: same operationIds, methods and paths", () => {
    const routes = gatewayRoutes();
    const fromRoutes = Object.fromEntries(routes.map((r) => [r.id, { method: r.method, path: r.path }]));
    expect(routes).toHaveLength(new Set(routes.map((r) => r.id)).size);
    expect(fromRoutes).toEqual(operations);
  });

});

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function testFiles(dir: string, ending = /\.test\.ts$/): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(rel, ending);
    return ending.test(entry.name) ? [rel] : [];
  });
}

/**
 * Where a test may write a table operation's path out by hand: the cases that are about the path
 * itself, or that imitate a client which knows nothing of the table. A whole file, or one literal
 * in it. Everything else calls t.op / t.opJson (or opPath) from lib/gateway/testing.ts, or, in an
 * e2e spec, bffPath (e2e/fixtures.ts) or operationPath.
 */
const LITERAL_PATHS_ALLOWED: Array<{ file: string; literal?: string; why: string }> = [
  { file: "lib/gateway/compat.test.ts", why: "imitates the upstream's Go client and reads the upstream's spec by its own paths" },
  { file: "lib/gateway/memo-router.test.ts", why: "a router of its own routes, not the gateway's" },
  { file: "lib/gateway/operations.test.ts", why: "this check's own examples" },
  { file: "lib/gateway/middleware/verify-signature.test.ts", literal: "/v1alpha5/locations", why: "a signature made for another prefix than the one called" },
  { file: "lib/gateway/middleware/verify-signature.test.ts", literal: "/organizations/projects", why: "a key of the OpenAPI document, not a call" },
  { file: "lib/gateway/routes/locations/locations.test.ts", literal: "/organizations/projects", why: "PATCH on it: a method the table lacks (an unknown route)" },
  { file: "lib/gateway/routes/locations/locations.test.ts", literal: "/organizations/projects/a%00b", why: "an escaped NUL in a segment (a path parameter would be escaped again)" },
  { file: "lib/gateway/routes/locations/locations.test.ts", literal: "/iam/users/a%00b/role-bindings", why: "the same, in another operation's path" },
  { file: "lib/gateway/audit.test.ts", literal: "/iam/%72oles", why: "a fixed segment percent-encoded: the operation named by the path Hono routed on" },
  { file: "lib/gateway/audit.test.ts", literal: "/organizations/${t.demo.organization_id}/users/${owner.user_id}/%6Dfa", why: "the same, for a refused mutation's audit entry" },
  { file: "lib/console/bff.test.ts", why: "the backend-for-frontend's own test: how it reads, checks and forwards paths" },
  { file: "lib/console/remote.test.ts", literal: "/v1alpha5/locations", why: "a call under the older prefix" },
  { file: "e2e/hardening.spec.ts", literal: "${baseURL}/v1alpha5/organizations/${demo.organization_id}/audit-logs?target_names=${name}", why: "under the older prefix, as the upstream's clients call it" },
];

/** Every string and template literal of a file that names a table operation's path, with its line. */
function literalOperationPaths(code: string): Array<{ line: number; literal: string }> {
  const found: Array<{ line: number; literal: string }> = [];
  for (const m of code.matchAll(/"(\/[^"\n]*)"|'(\/[^'\n]*)'|`(\/[^`]*)`/g)) {
    const literal = m[1] ?? m[2] ?? m[3] ?? "";
    // ${…} stands for one segment; the query string and a version prefix do not count.
    const bare = literal
      .replace(/\$\{[^}]*\}+/g, "x")
      .replace(/[?#].*$/s, "")
      .replace(/^(\$\{baseURL\})?(\/api\/cloud)?\/(v1alpha5|v1)(?=\/)/, "");
    if (["GET", "POST", "PUT", "PATCH", "DELETE"].some((method) => matchOperation(method, bare))) {
      found.push({ line: code.slice(0, m.index).split("\n").length, literal });
    }
  }
  return found;
}

describe("the gateway's and the console's tests and the e2e specs", () => {
  it("call table operations through the operations table, not by literal paths (but for the listed exemptions)", () => {
    const wrong = [...testFiles("lib/gateway"), ...testFiles("lib/console"), ...testFiles("e2e", /\.(spec|setup)\.ts$|^fixtures\.ts$/)].flatMap((file) => {
      const allowed = LITERAL_PATHS_ALLOWED.filter((a) => a.file === file);
      if (allowed.some((a) => a.literal === undefined)) return [];
      return literalOperationPaths(readFileSync(path.join(ROOT, file), "utf8"))
        .filter(({ literal }) => !allowed.some((a) => a.literal === literal))
        .map(({ line, literal }) => `${file}:${line} ${literal}`);
    });
    expect(wrong).toEqual([]);
  });

  it("the check finds a literal path and passes one from the table", () => {
    expect(literalOperationPaths('t.json("owner", "GET", `/organizations/${org}/usage/export`)').map((f) => f.literal)).toEqual(["/organizations/${org}/usage/export"]);
    expect(literalOperationPaths('request.get("/api/cloud/v1/organizations/projects?project_name=x")')).toHaveLength(1);
    expect(literalOperationPaths('t.opJson("owner", "getUsageExport", { params: { organization_id: org } })')).toEqual([]);
    expect(literalOperationPaths('t.call("owner", "GET", "/organizations/nothing-here")')).toEqual([]);
  });
});
