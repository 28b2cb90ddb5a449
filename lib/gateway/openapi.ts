import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context";

const cache = new Map<string, unknown>();

/** The OpenAPI document, generated from the routes' contracts (lib/contract). */
export function buildOpenApiDocument(api: OpenAPIHono<AppEnv>, prefix: string): unknown {
  let doc = cache.get(prefix);
  if (!doc) {
    api.openAPIRegistry.registerComponent("securitySchemes", "signature", {
      type: "apiKey",
      in: "header",
      name: "Authorization",
      description:
        "Bearer 1.0:<access_key_id>:<signature>, with X-Service-Timestamp (or X-Crusoe-Timestamp). The signature is raw URL-safe base64 of " +
        "HMAC-SHA256(secret, path + \\n + canonical query + \\n + method + \\n + timestamp + \\n).",
    });
    doc = api.getOpenAPIDocument({
      openapi: "3.0.3",
      info: { title: "Stratus cloud platform API gateway", version: "v1" },
      servers: [{ url: prefix }],
      security: [{ signature: [] }],
    });
    cache.set(prefix, doc);
  }
  return doc;
}
