import { createRoute } from "@hono/zod-openapi";
import {
  entitiesPutPostRequestSchema,
  entitiesPutPostResponseSchema,
  listEntitiesResponseSchema,
  updateOrganizationQuerySchema,
} from "@/lib/contract/organizations";
import { errors, json, jsonBody, operation } from "../shared";

const tags = ["Entities"];

export const getOrganizations = createRoute({
  ...operation("getOrganizations"),
  tags,
  summary: "Retrieve details about all active organizations the logged in user belongs to.",
  responses: { 200: json(listEntitiesResponseSchema, "the caller's organizations"), ...errors(401, 500) },
});

export const updateOrganization = createRoute({
  ...operation("updateOrganization"),
  tags,
  summary: "Update details for an organization that the logged in user owns.",
  request: { query: updateOrganizationQuerySchema, body: jsonBody(entitiesPutPostRequestSchema) },
  responses: { 200: json(entitiesPutPostResponseSchema, "the updated organization"), ...errors(400, 401, 403, 500) },
});
