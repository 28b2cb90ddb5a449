import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
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

/** Distinct query inputs remembered per operation; beyond that the memory starts over. */
const QUERY_PARSES_KEPT = 256;

/**
 * A query schema that answers an input it has parsed before from memory: the same query parses
 * the same, and most calls send one of a few (none at all, one page size). zod's parse of even an
 * empty query was a twentieth of a signed read's time (`npm run bench`, gateway throughput).
 * The parsed values are frozen, so no handler can change what the next request is given.
 */
const remembering = new WeakSet<object>();

function rememberParses(schema: { safeParseAsync(value: unknown): Promise<{ success: boolean; data?: unknown }> }): void {
  // A schema shared by operations, or by the routers of several apps, is wrapped once.
  if (remembering.has(schema)) return;
  remembering.add(schema);
  const parse = schema.safeParseAsync.bind(schema);
  const kept = new Map<string, Promise<{ success: boolean; data?: unknown }>>();
  schema.safeParseAsync = (value) => {
    const key = JSON.stringify(value);
    let result = kept.get(key);
    if (!result) {
      result = parse(value).then((parsed) => {
        if (parsed.success) deepFreeze(parsed.data);
        return parsed;
      });
      if (kept.size >= QUERY_PARSES_KEPT) kept.clear();
      kept.set(key, result);
    }
    return result;
  };
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const item of Object.values(value)) deepFreeze(item);
}

/** Frozen inputs found storable: they cannot change since. */
const walked = new WeakSet<object>();

/** A router whose validation failures are 400s that name the field. */
export function createRouter(): OpenAPIHono<AppEnv> {
  const router = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      const target = TARGET_NAMES[result.target] ?? result.target;
      if (!result.success) {
        // On failure the validator hands over the raw input as `data`.
        throw new GatewayError("bad_request", describeZodError(result.error as ZodError, target, (result as { data?: unknown }).data));
      }
      // Valid to the schema but not storable: a 400 naming the field, not a database error.
      // A remembered query (frozen, see rememberParses) is walked once, not on every request.
      const data = result.data as unknown;
      if (typeof data === "object" && data !== null && walked.has(data)) return;
      const found = unstorable(data, target);
      if (found) throw new GatewayError("bad_request", `${found.at}: ${found.why}`);
      if (typeof data === "object" && data !== null && Object.isFrozen(data)) walked.add(data);
    },
  });
  const register = router.openapi;
  router.openapi = ((route: RouteConfig, ...rest: unknown[]) => {
    const query = route.request?.query as Parameters<typeof rememberParses>[0] | undefined;
    if (query) rememberParses(query);
    return (register as (...args: unknown[]) => unknown)(route, ...rest);
  }) as typeof router.openapi;
  return router;
}

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

/** The declared statuses of the operation a request path (without version prefix) is for, if any. */
export function findOperation(method: string, path: string): DeclaredOperation | undefined {
  const id = matchOperation(method, path);
  return id ? declaredOperations.get(id) : undefined;
}
