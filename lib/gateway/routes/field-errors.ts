import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ZodError } from "zod";
import type { AppEnv } from "../context";
import { GatewayError } from "../errors";

const TARGETS: Record<string, string> = { json: "body", query: "query", param: "path", header: "header" };

/** "email_domains", 1, "x" → "email_domains[1].x" */
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
 * A validation hook that names each bad field as a client would write it
 * ("body.email_domains[1]: must be a domain name") and says "is required" only when
 * the field is really absent (zod 4 issues carry no input, so the value is looked
 * up in the raw input the validator hands over). Valid input goes on to the
 * router's own hook, so its checks of valid input still apply.
 */
export function fieldErrorHook(api: OpenAPIHono<AppEnv>) {
  return (result: { success: boolean; target: string; error?: unknown; data?: unknown }, c: Context<AppEnv>): undefined => {
    if (result.success) return api.defaultHook?.(result as never, c as never) as undefined;
    const issues = (result.error as ZodError).issues.slice(0, 5);
    // On failure the validator passes the raw input as `data`.
    const input = result.data;
    const target = TARGETS[result.target] ?? result.target;
    const message = issues
      .map((issue) => {
        const missing = issue.code === "invalid_type" && valueAt(input, issue.path) === undefined;
        return `${fieldName(target, issue.path)}: ${missing ? "is required" : issue.message}`;
      })
      .join("; ");
    throw new GatewayError("bad_request", message);
  };
}
