import { createRoute } from "@hono/zod-openapi";
import {
  createSsoProviderRequestSchema,
  listSsoProvidersResponseSchema,
  ssoOrgPathSchema,
  ssoProviderPathSchema,
  ssoProviderSchema,
  updateSsoProviderRequestSchema,
} from "@/lib/contract/sso";
import { errors, json, jsonBody, operation } from "../shared";

const tags = ["SSO"];

// These operations declare no 401: the app answers an authentication failure with 403.

export const listSsoProviders = createRoute({
  ...operation("listSSOProviders"),
  tags,
  summary: "Returns the active sso providers for a given orgID.",
  request: { params: ssoOrgPathSchema },
  responses: { 200: json(listSsoProvidersResponseSchema, "the organization's SSO providers"), ...errors(400, 403, 404, 500) },
});

export const createSsoProvider = createRoute({
  ...operation("createSSOProvider"),
  tags,
  summary: "Create a new SSO provider for a specific org.",
  request: { params: ssoOrgPathSchema, body: jsonBody(createSsoProviderRequestSchema) },
  responses: { 200: json(ssoProviderSchema, "the created provider"), ...errors(400, 403, 404, 500) },
});

export const updateSsoProvider = createRoute({
  ...operation("updateSSOProvider"),
  tags,
  summary: "Replace a provider's client id or client secret (the secret is write-only).",
  request: { params: ssoProviderPathSchema, body: jsonBody(updateSsoProviderRequestSchema) },
  responses: { 200: json(ssoProviderSchema, "the updated provider"), ...errors(400, 403, 404, 500) },
});

export const deleteSsoProvider = createRoute({
  ...operation("deleteSSOProvider"),
  tags,
  summary: "Delete a specific SSO provider for a specific org.",
  request: { params: ssoProviderPathSchema },
  responses: { 200: json(ssoProviderSchema, "the deleted provider"), ...errors(400, 403, 404, 500) },
});
