import { createRoute } from "@hono/zod-openapi";
import { editOrgMfaRequestSchema, getOrgMfaResponseSchema, mfaPathSchema } from "@/lib/contract/mfa";
import { defaultError, errors, json, jsonBody, operation } from "../shared";

const tags = ["MFA"];

// Absent from the upstream document; named as its OrganizationsMFAService would be.

export const getOrganizationMfa = createRoute({
  ...operation("OrganizationsMFAService_GetOrganizationMFA"),
  tags,
  summary: "Returns the MFA methods the organization requires.",
  request: { params: mfaPathSchema },
  responses: { 200: json(getOrgMfaResponseSchema, "the enabled MFA methods"), ...errors(400, 401, 403, 500), ...defaultError },
});

export const updateOrganizationMfa = createRoute({
  ...operation("OrganizationsMFAService_UpdateOrganizationMFA"),
  tags,
  summary: "Sets the MFA methods the organization requires.",
  description:
    "The listed methods become the required set: methods that stay keep their created_at, the others are removed. Needs mfa.manage; only an owner may require none where some are required (403).",
  request: { params: mfaPathSchema, body: jsonBody(editOrgMfaRequestSchema) },
  responses: { 200: json(getOrgMfaResponseSchema, "the updated MFA methods"), ...errors(400, 401, 403, 500), ...defaultError },
});
