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
  putScimGroupMappingsRequestSchema,
  scimGroupMappingsQuerySchema,
  scimGroupMappingsResponseSchema,
  scimProvisionedResponseSchema,
} from "@/lib/contract/scim";
import { errors, json, jsonBody, operation } from "../shared";

const tags = ["SCIM"];
export const listScimIntegrations = createRoute({
  ...operation("listSCIMIntegrations"),
  tags,
  summary: "List SCIM integrations for an organization.",
  request: { params: scimOrgPathSchema },
  responses: { 200: json(listScimIntegrationsResponseSchema, "integrations"), ...errors(400, 401, 403, 500) },
});

export const createScimIntegration = createRoute({
  ...operation("createSCIMIntegration"),
  tags,
  summary: "Create a new SCIM integration for an organization.",
  description: "With `token`, also creates the integration's first token; its secret is in `api_key_info` and is shown only here.",
  request: { params: scimOrgPathSchema, body: jsonBody(createScimIntegrationRequestSchema) },
  responses: { 200: json(createScimIntegrationResponseSchema, "the created integration"), ...errors(400, 401, 403, 500) },
});

export const getScimIntegration = createRoute({
  ...operation("getSCIMIntegration"),
  tags,
  summary: "Get a SCIM integration by ID.",
  request: { params: scimIntegrationPathSchema },
  responses: { 200: json(scimIntegrationSchema, "the integration"), ...errors(400, 401, 403, 404, 500) },
});

export const updateScimIntegration = createRoute({
  ...operation("updateSCIMIntegration"),
  tags,
  summary: "Update a SCIM integration.",
  request: { params: scimIntegrationPathSchema, body: jsonBody(updateScimIntegrationRequestSchema) },
  responses: { 200: json(scimIntegrationSchema, "the updated integration"), ...errors(400, 401, 403, 404, 500) },
});

export const deleteScimIntegration = createRoute({
  ...operation("deleteSCIMIntegration"),
  tags,
  summary: "Delete a SCIM integration.",
  description: "Its tokens are deleted with it.",
  request: { params: scimIntegrationPathSchema },
  responses: { 204: { description: "Empty Response" }, ...errors(400, 401, 403, 404, 500) },
});

export const listScimIntegrationTokens = createRoute({
  ...operation("listSCIMIntegrationTokens"),
  tags,
  summary: "List the tokens for a SCIM integration.",
  request: { params: scimIntegrationPathSchema },
  responses: { 200: json(listScimIntegrationTokensResponseSchema, "tokens, without their secrets"), ...errors(400, 401, 403, 404, 500) },
});

export const createScimIntegrationToken = createRoute({
  ...operation("createSCIMIntegrationToken"),
  tags,
  summary: "Create a token for a SCIM integration.",
  description: "The secret (`api_key_info.api_key`) is shown only in this response.",
  request: { params: scimIntegrationPathSchema, body: jsonBody(createScimTokenRequestSchema) },
  responses: { 200: json(limitedUsageApiKeyPostResponseSchema, "the created token"), ...errors(400, 401, 403, 404, 500) },
});

export const deleteScimIntegrationToken = createRoute({
  ...operation("deleteSCIMIntegrationToken"),
  tags,
  summary: "Delete a token from a SCIM integration.",
  request: { params: scimTokenPathSchema },
  responses: { 204: { description: "Empty Response" }, ...errors(400, 401, 403, 404, 500) },
});

export const getScimGroupMappings = createRoute({
  ...operation("getSCIMGroupMappings"),
  tags,
  summary: "List an integration's group to role mappings.",
  description: "Members of a SCIM group whose display name a mapping names hold that role binding.",
  request: { params: scimIntegrationPathSchema },
  responses: { 200: json(scimGroupMappingsResponseSchema, "the mappings"), ...errors(400, 401, 403, 404, 500) },
});

export const putScimGroupMappings = createRoute({
  ...operation("putSCIMGroupMappings"),
  tags,
  summary: "Replace an integration's group to role mappings.",
  description:
    "The group-granted role bindings follow at once, in the same transaction. With `dry_run=true`, answers the bindings the change would create and remove, and changes nothing.",
  request: { params: scimIntegrationPathSchema, query: scimGroupMappingsQuerySchema, body: jsonBody(putScimGroupMappingsRequestSchema) },
  responses: { 200: json(scimGroupMappingsResponseSchema, "the mappings, and the bindings created and removed"), ...errors(400, 401, 403, 404, 500) },
});

export const getScimIntegrationProvisioned = createRoute({
  ...operation("getSCIMIntegrationProvisioned"),
  tags,
  summary: "The people and groups an integration provisioned.",
  description: "Counts are computed from the organization's people and the integration's groups; the lists hold at most 200 of each.",
  request: { params: scimIntegrationPathSchema },
  responses: { 200: json(scimProvisionedResponseSchema, "people and groups"), ...errors(400, 401, 403, 404, 500) },
});
