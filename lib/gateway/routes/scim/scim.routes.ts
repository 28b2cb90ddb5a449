import { createRoute } from "@hono/zod-openapi";
import {
  createScimIntegrationRequestSchema,
  createScimIntegrationResponseSchema,
  createScimTokenRequestSchema,
  limitedUsageApiKeyPostResponseSchema,
  listScimIntegrationsResponseSchema,
  listScimIntegrationTokensResponseSchema,
  scimIntegrationPathSchema,
  scimIntegrationSchema,
  scimOrgPathSchema,
  scimTokenPathSchema,
  updateScimIntegrationRequestSchema,
} from "@/lib/contract/scim";
import { errors, json, jsonBody } from "../shared";

const tags = ["SCIM"];
const base = "/organizations/{org_id}/scim/integrations";

export const listScimIntegrations = createRoute({
  method: "get",
  path: base,
  operationId: "listSCIMIntegrations",
  tags,
  summary: "List SCIM integrations for an organization.",
  request: { params: scimOrgPathSchema },
  responses: { 200: json(listScimIntegrationsResponseSchema, "integrations"), ...errors(401, 403, 500) },
});

export const createScimIntegration = createRoute({
  method: "post",
  path: base,
  operationId: "createSCIMIntegration",
  tags,
  summary: "Create a new SCIM integration for an organization.",
  description: "With `token`, also creates the integration's first token; its secret is in `api_key_info` and is shown only here.",
  request: { params: scimOrgPathSchema, body: jsonBody(createScimIntegrationRequestSchema) },
  responses: { 200: json(createScimIntegrationResponseSchema, "the created integration"), ...errors(400, 401, 403, 500) },
});

export const getScimIntegration = createRoute({
  method: "get",
  path: `${base}/{integration_id}`,
  operationId: "getSCIMIntegration",
  tags,
  summary: "Get a SCIM integration by ID.",
  request: { params: scimIntegrationPathSchema },
  responses: { 200: json(scimIntegrationSchema, "the integration"), ...errors(401, 403, 404, 500) },
});

export const updateScimIntegration = createRoute({
  method: "patch",
  path: `${base}/{integration_id}`,
  operationId: "updateSCIMIntegration",
  tags,
  summary: "Update a SCIM integration.",
  request: { params: scimIntegrationPathSchema, body: jsonBody(updateScimIntegrationRequestSchema) },
  responses: { 200: json(scimIntegrationSchema, "the updated integration"), ...errors(400, 401, 403, 404, 500) },
});

export const deleteScimIntegration = createRoute({
  method: "delete",
  path: `${base}/{integration_id}`,
  operationId: "deleteSCIMIntegration",
  tags,
  summary: "Delete a SCIM integration.",
  description: "Its tokens are deleted with it.",
  request: { params: scimIntegrationPathSchema },
  responses: { 204: { description: "Empty Response" }, ...errors(401, 403, 404, 500) },
});

export const listScimIntegrationTokens = createRoute({
  method: "get",
  path: `${base}/{integration_id}/tokens`,
  operationId: "listSCIMIntegrationTokens",
  tags,
  summary: "List the tokens for a SCIM integration.",
  request: { params: scimIntegrationPathSchema },
  responses: { 200: json(listScimIntegrationTokensResponseSchema, "tokens, without their secrets"), ...errors(401, 403, 404, 500) },
});

export const createScimIntegrationToken = createRoute({
  method: "post",
  path: `${base}/{integration_id}/tokens`,
  operationId: "createSCIMIntegrationToken",
  tags,
  summary: "Create a token for a SCIM integration.",
  description: "The secret (`api_key_info.api_key`) is shown only in this response.",
  request: { params: scimIntegrationPathSchema, body: jsonBody(createScimTokenRequestSchema) },
  responses: { 200: json(limitedUsageApiKeyPostResponseSchema, "the created token"), ...errors(400, 401, 403, 404, 500) },
});

export const deleteScimIntegrationToken = createRoute({
  method: "delete",
  path: `${base}/{integration_id}/tokens/{access_key_id}`,
  operationId: "deleteSCIMIntegrationToken",
  tags,
  summary: "Delete a token from a SCIM integration.",
  request: { params: scimTokenPathSchema },
  responses: { 204: { description: "Empty Response" }, ...errors(400, 401, 403, 404, 500) },
});
