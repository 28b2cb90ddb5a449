import { OpenAPIHono, type Hook, type RouteConfig } from "@hono/zod-openapi";
import { zValidator } from "@hono/zod-validator";
import type { MiddlewareHandler } from "hono";
import type { ZodError } from "zod";
import { matchOperation } from "@/lib/contract/operations";
import type { AppEnv } from "./context";
import { GatewayError } from "./errors";

/** "email_domains", 1, "x" → "body.email_domains[1].x" */
function fieldName(target: string, path: PropertyKey[]): string {
  return path.reduce<string>((name, segment) => (typeof segment === "number" ? `${name}[${segment}]` : `${name}.${String(segment)}`), target);
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const segment of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}

/**
 * "body.email_domains[1]: must be a domain name; query.limit: …". Says "is required"
 * only when the field is really absent: zod 4 issues carry no input, so the value is
 * looked up in the raw input the validator hands over.
 */
export function describeZodError(error: ZodError, target: string, input: unknown): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const missing = issue.code === "invalid_type" && valueAt(input, issue.path) === undefined;
      return `${fieldName(target, issue.path)}: ${missing ? "is required" : issue.message}`;
    })
    .join("; ");
}

const TARGET_NAMES: Record<string, string> = { json: "body", query: "query", param: "path", header: "header" };

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** How deep a stored JSON value may nest: far beyond any resource's shape, far below the stack's limit. */
export const MAX_JSON_DEPTH = 32;

/**
 * The first value in an input that the store cannot keep as sent, named as in "body.billing_addr.city",
 * with why: a string (or key) holding a NUL or half of a surrogate pair, a number JSON cannot write
 * back (1e400 parses as Infinity, stored as null), or nesting deeper than MAX_JSON_DEPTH; null when none.
 */
export function unstorable(value: unknown, at: string, depth = 0): { at: string; why: string } | null {
  if (typeof value === "string") return UNSTORABLE.test(value) ? { at, why: "must not contain NUL characters or unpaired surrogates" } : null;
  if (typeof value === "number") return Number.isFinite(value) ? null : { at, why: "must be a finite number" };
  if (value === null || typeof value !== "object") return null;
  if (depth >= MAX_JSON_DEPTH) return { at, why: `must not nest deeper than ${MAX_JSON_DEPTH} levels` };
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = unstorable(item, memberName(at, i), depth + 1);
      if (found) return found;
    }
  } else {
    for (const [key, item] of Object.entries(value)) {
      const found = unstorable(key, memberName(at, key)) ?? unstorable(item, memberName(at, key), depth + 1);
      if (found) return found;
    }
  }
  return null;
}

/** "body.x", "body.x[1]": a function of its own, not a closure per object (made on every request's query). */
function memberName(at: string, key: string | number): string {
  return typeof key === "number" ? `${at}[${key}]` : at ? `${at}.${key}` : key;
}

/** Distinct queries remembered per operation; beyond that the memory starts over. */
const QUERIES_KEPT = 256;
/** Longer query strings are validated every time: at most QUERIES_KEPT × this many characters kept per operation. */
const QUERY_KEPT_MAX_LENGTH = 512;

/**
 * A route's query validation, answered from memory for a query string it has validated before:
 * the same query validates the same, and most calls send one of a few (none at all, one page
 * size). A query not seen before goes through zod-openapi's own validator, exactly as it would
 * without this, and its result is kept, frozen, so no handler can change what the next request
 * is given. Read by position from the request URL, a known query costs a lookup: the validator's
 * layer (its header read, the query's parse, zod, the hook, four promise turns) was a twentieth
 * of a signed read's CPU time (`npm run bench`, gateway throughput; hono's validator is
 * replaced here for that row).
 */
function rememberingQuery(validate: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  const kept = new Map<string, object>();
  return (c, next) => {
    const url = c.req.url;
    const at = url.indexOf("?");
    const raw = at === -1 ? "" : url.slice(at + 1);
    const known = kept.get(raw);
    if (known) {
      c.req.addValidatedData("query", known);
      return next();
    }
    return validate(c, () => {
      const data = c.req.valid("query" as never) as unknown;
      if (typeof data === "object" && data !== null && raw.length <= QUERY_KEPT_MAX_LENGTH) {
        deepFreeze(data);
        if (kept.size >= QUERIES_KEPT) kept.clear();
        kept.set(raw, data);
      }
      return next();
    }) as Promise<void | Response>;
  };
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const item of Object.values(value)) deepFreeze(item);
}

/** A router whose validation failures are 400s that name the field. */
export function createRouter(): OpenAPIHono<AppEnv> {
  const defaultHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
    const target = TARGET_NAMES[result.target] ?? result.target;
    if (!result.success) {
      // On failure the validator hands over the raw input as `data`.
      throw new GatewayError("bad_request", describeZodError(result.error as ZodError, target, (result as { data?: unknown }).data));
    }
    // Valid to the schema but not storable: a 400 naming the field, not a database error.
    // (A query seen before comes from memory, walked already: rememberingQuery.)
    const found = unstorable(result.data, target);
    if (found) throw new GatewayError("bad_request", `${found.at}: ${found.why}`);
  };
  const router = new OpenAPIHono<AppEnv>({ defaultHook });
  const register = router.openapi as (route: RouteConfig & { hide?: boolean }, ...rest: unknown[]) => unknown;
  // A route with a query: documented as it is, and registered without it (so zod-openapi adds no
  // query validator of its own), the remembering one in its place, first as before.
  router.openapi = ((given: RouteConfig & { hide?: boolean }, handler: unknown, hook?: Hook<unknown, AppEnv, string, unknown>) => {
    const route = given.request?.body?.required ? { ...given, middleware: [...middlewareOf(given), bodyRequired] } : given;
    const query = route.request?.query;
    // A route's own hook may do more than judge (it is given the context): it runs on every request.
    if (!query || hook) return register.call(router, route, handler, hook);
    const { middleware, hide, ...documented } = route;
    if (!hide) router.openAPIRegistry.registerPath(documented);
    const before = middlewareOf({ middleware });
    const validate = rememberingQuery(zValidator("query", query as never, defaultHook as never) as unknown as MiddlewareHandler<AppEnv>);
    return register.call(router, { ...documented, hide: true, request: { ...documented.request, query: undefined }, middleware: [...before, validate] }, handler, hook);
  }) as typeof router.openapi;
  return router;
}

const middlewareOf = (route: Pick<RouteConfig, "middleware">): MiddlewareHandler[] =>
  route.middleware ? (Array.isArray(route.middleware) ? route.middleware : [route.middleware]) : [];

/**
 * A body the operation requires is there. Sent without one (and so without a Content-Type), Hono's JSON
 * validator would judge `{}`: an operation whose fields are all optional (`PUT /organizations/entities`)
 * would answer 200, changing nothing but its audit trail and `updated_at`.
 */
const bodyRequired: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!c.req.header("content-type") && (await c.req.text()) === "") throw new GatewayError("bad_request", "body: is required");
  await next();
};

export interface DeclaredOperation {
  statuses: Set<number>;
  hasDefault: boolean;
}

/**
 * Which statuses each operation declares, so errors keep to them (see onError). Keyed by
 * operationId: building the API again replaces an entry, it never adds one.
 */
const declaredOperations = new Map<string, DeclaredOperation>();

export function declare(route: RouteConfig): void {
  const keys = Object.keys(route.responses);
  declaredOperations.set(route.operationId ?? `${route.method} ${route.path}`, {
    statuses: new Set(keys.filter((k) => /^\d+$/.test(k)).map(Number)),
    hasDefault: keys.includes("default"),
  });
}

/**
 * The path a request was routed on, without its version prefix (/v1, /v1alpha5), as operations are
 * declared: Hono's (`c.req.path`), percent-escapes of unreserved characters decoded, so
 * `/users/<id>/%6Dfa` is the operation `/mfa` that ran, not "no operation". What is signed is the path
 * as written (verify-signature.ts); which operation it is, this says.
 */
export const routedPath = (c: { req: { path: string } }): string => c.req.path.replace(/^\/v1(alpha5)?(?=\/)/, "");

/** The declared statuses of the operation a request path (without version prefix) is for, if any. */
export function findOperation(method: string, path: string): DeclaredOperation | undefined {
  // HEAD is the GET without its body (Hono answers it with the GET's route), so it answers with the GET's statuses.
  const id = matchOperation(method.toUpperCase() === "HEAD" ? "GET" : method, path);
  return id ? declaredOperations.get(id) : undefined;
}
