import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import type { AppEnv } from "./context";
import { GatewayError } from "./errors";

/** "body.billing_addr.city: must not be empty; query.limit: …" */
export function describeZodError(error: ZodError, target: string): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const where = [target, ...issue.path.map(String)].join(".");
      const message = issue.code === "invalid_type" && issue.input === undefined ? "is required" : issue.message;
      return `${where}: ${message}`;
    })
    .join("; ");
}

const TARGET_NAMES: Record<string, string> = { json: "body", query: "query", param: "path", header: "header" };

/** A router whose validation failures are 400s that name the field. */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        throw new GatewayError("bad_request", describeZodError(result.error as ZodError, TARGET_NAMES[result.target] ?? result.target));
      }
    },
  });
}

export interface DeclaredOperation {
  method: string;
  pattern: RegExp;
  statuses: Set<number>;
  hasDefault: boolean;
}

/** Which statuses each operation declares, so errors keep to them (see onError). */
export const declaredOperations: DeclaredOperation[] = [];

export function declare(route: RouteConfig): void {
  const source = route.path.replace(/\{[^}]+\}/g, "[^/]+");
  const keys = Object.keys(route.responses);
  declaredOperations.push({
    method: route.method.toUpperCase(),
    pattern: new RegExp(`^${source}$`),
    statuses: new Set(keys.filter((k) => /^\d+$/.test(k)).map(Number)),
    hasDefault: keys.includes("default"),
  });
}

/** The declared operation a request path (without version prefix) is for, if any. */
export function findOperation(method: string, path: string): DeclaredOperation | undefined {
  // Static segments first: /reservations/gpu-tracking before /reservations/{id}.
  const matches = declaredOperations.filter((op) => op.method === method && op.pattern.test(path));
  return matches.sort((a, b) => a.pattern.source.split("[^/]+").length - b.pattern.source.split("[^/]+").length)[0];
}
