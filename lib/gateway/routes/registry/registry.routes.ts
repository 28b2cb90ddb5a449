import { createRoute } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import {
  ccrTokenRequestSchema,
  ccrTokenResponseSchema,
  listSupportedLocationsResponseSchema,
  listSupportedProvidersResponseSchema,
} from "@/lib/contract/registry";
import type { AppEnv } from "../../context";
import { errors, json, operation } from "../shared";

const tags = ["Ccr", "Container Registry"];

export const listSupportedLocations = createRoute({
  ...operation("listSupportedLocations"),
  tags,
  summary: "Lists the locations where container registry repositories can be hosted.",
  responses: { 200: json(listSupportedLocationsResponseSchema, "locations"), ...errors(401, 500) },
});

export const listSupportedProviders = createRoute({
  ...operation("listSupportedProviders"),
  tags,
  summary: "Lists the upstream registry providers supported for pull-through-cache repositories.",
  responses: { 200: json(listSupportedProvidersResponseSchema, "providers"), ...errors(401, 500) },
});

/**
 * The body is optional: an empty one sent with a JSON content type (as generated clients
 * do for a bodiless POST), or a JSON null (a Go client's nil body), reads as {}, not as
 * malformed JSON. Without a content type the body is left as it came: the validator takes
 * an empty one as no body, and refuses any other.
 */
const emptyBodyIsEmptyObject: MiddlewareHandler<AppEnv> = async (c, next) => {
  const text = c.req.header("content-type") ? (await c.req.text()).trim() : undefined;
  if (text === "" || text === "null") {
    // Hono parses JSON from its cache of the body text (a promise, though typed as a string).
    (c.req.bodyCache as unknown as { text: Promise<string> }).text = Promise.resolve("{}");
  }
  await next();
};

export const createCcrToken = createRoute({
  ...operation("createCcrToken"),
  tags,
  summary: "Creates a limited-scope token for authenticating to the container registry and returns it.",
  description: "The token is shown only in this response. It belongs to the caller's first organization.",
  middleware: [emptyBodyIsEmptyObject] as const,
  request: { body: { required: false, content: { "application/json": { schema: ccrTokenRequestSchema } } } },
  responses: { 200: json(ccrTokenResponseSchema, "the created token"), ...errors(400, 401, 500) },
});
