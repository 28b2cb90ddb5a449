import { z } from "zod";
import { aliasSchema, nameSchema } from "./common";
import { futureTimestampSchema } from "./time";
import { SCIM_STATUSES } from "./constants";

export { SCIM_STATUSES } from "./constants";

// Path values are checked for shape in the handlers: the reads declare no 400, so an
// id that cannot exist is a 404 there, not a validation error.
export const scimOrgPathSchema = z.object({ org_id: z.string() });
export const scimIntegrationPathSchema = z.object({ org_id: z.string(), integration_id: z.string() });
export const scimTokenPathSchema = z.object({ org_id: z.string(), integration_id: z.string(), access_key_id: z.string() });

/**
 * A token's expiry, required. A Go client sends a required field it was not given as its
 * zero value, the empty string: that is a missing expiry, refused as such (a token
 * without an expiry is never made), not read as a malformed timestamp.
 */
const scimTokenExpirySchema = z
  .string({ message: "must be a string" })
  .min(1, "is required: an RFC 3339 timestamp in the future (an empty string sets no expiry, and a SCIM token needs one)")
  .pipe(futureTimestampSchema)
  .meta({ format: "date-time" });

export const createScimTokenRequestSchema = z
  .object({
    alias: aliasSchema.min(1, "must not be empty"),
    expires_at: scimTokenExpirySchema,
  })
  .meta({ id: "CreateSCIMTokenRequestBody" });

export const createScimIntegrationRequestSchema = z
  .object({
    name: nameSchema,
    identity_provider: z
      .string({ message: "must be a string" })
      .trim()
      .min(1, "must not be empty")
      .max(64, "must be at most 64 characters")
      .regex(/^[\p{L}\p{N} ._()-]+$/u, "may hold only letters, digits, spaces, dots, dashes, underscores and parentheses")
      .meta({ example: "okta" }),
    token: createScimTokenRequestSchema.optional(),
  })
  .meta({ id: "CreateSCIMIntegrationRequestBody" });

export const updateScimIntegrationRequestSchema = z
  .object({
    status: z.enum(SCIM_STATUSES, { message: 'must be "active" or "inactive"' }).optional(),
  })
  .meta({ id: "UpdateSCIMIntegrationRequestBody" });

export const scimIntegrationSchema = z
  .object({
    id: z.string(),
    organization_id: z.string(),
    name: z.string(),
    identity_provider: z.string(),
    token_ids: z.array(z.string()),
    status: z.string().meta({ example: "active" }),
    created_at: z.string(),
    updated_at: z.string(),
    created_by: z.string(),
    last_activity_at: z.string().optional(),
    user_count: z.number().int(),
  })
  .meta({ id: "SCIMIntegrationResponse" });

/**
 * SCIM tokens are the platform's limited-usage API keys, whose `usage` the reference
 * requires and allows only as inference or observability. Provisioning is neither;
 * clients generated from the reference reject any other value, so SCIM tokens report
 * the closer one, observability (they read and write directory data, never models).
 */
export const SCIM_TOKEN_USAGE = "observability" as const;
const limitedUsageSchema = z.enum(["inference", "observability"]);

/** A token as created: the secret (`api_key`) appears here once. */
export const generatedLimitedUsageApiKeySchema = z
  .object({
    usage: limitedUsageSchema,
    key_id: z.string(),
    api_key: z.string(),
    alias: z.string(),
    created_at: z.string(),
    expires_at: z.string(),
    /** The project a limited-usage key is bound to; SCIM tokens belong to no project, so it is never set. */
    project_id: z.string().optional(),
  })
  .meta({ id: "GeneratedLimitedUsageAPIKey" });

export const createScimIntegrationResponseSchema = z
  .object({
    integration: scimIntegrationSchema,
    api_key_info: generatedLimitedUsageApiKeySchema.optional(),
  })
  .meta({ id: "CreateSCIMIntegrationResponse" });

export const listScimIntegrationsResponseSchema = z
  .object({ integrations: z.array(scimIntegrationSchema) })
  .meta({ id: "ListSCIMIntegrationsResponse" });

export const limitedUsageApiKeyPostResponseSchema = z
  .object({ api_key_info: generatedLimitedUsageApiKeySchema })
  .meta({ id: "LimitedUsageAPIKeyPostResponse" });

export const scimIntegrationTokenInfoSchema = z
  .object({
    usage: limitedUsageSchema,
    key_id: z.string(),
    alias: z.string(),
    created_at: z.string(),
    expires_at: z.string(),
    /** Empty until the token is first used. */
    last_used: z.string(),
    user_id: z.string(),
    /** As on GeneratedLimitedUsageAPIKey: never set for a SCIM token. */
    project_id: z.string().optional(),
  })
  .meta({ id: "SCIMIntegrationTokenInfo" });

export const listScimIntegrationTokensResponseSchema = z
  .object({ items: z.array(scimIntegrationTokenInfoSchema) })
  .meta({ id: "ListSCIMIntegrationTokensResponse" });

export type ScimIntegration = z.infer<typeof scimIntegrationSchema>;
export type ScimTokenInfo = z.infer<typeof scimIntegrationTokenInfoSchema>;
export type GeneratedLimitedUsageApiKey = z.infer<typeof generatedLimitedUsageApiKeySchema>;

// ---------------------------------------------------------------- group → role mappings

export const scimGroupMappingSchema = z
  .object({
    group_display_name: z.string({ message: "must be a string" }).trim().min(1, "must not be empty").max(256, "must be at most 256 characters"),
    role_id: z.string({ message: "must be a string" }).min(1, "must not be empty"),
    scope_type: z.enum(["org", "project"], { message: 'must be "org" or "project"' }),
    scope_object_id: z.string({ message: "must be a string" }).min(1, "must not be empty"),
  })
  .meta({ id: "SCIMGroupMapping" });

export const putScimGroupMappingsRequestSchema = z
  .object({ mappings: z.array(scimGroupMappingSchema).max(500, "at most 500 mappings") })
  .meta({ id: "PutSCIMGroupMappingsRequestBody" });

export const scimGroupMappingsQuerySchema = z.object({
  /** "true": answer what the mappings would change, and change nothing. */
  dry_run: z.enum(["true", "false"], { message: 'must be "true" or "false"' }).optional(),
});

const bindingChangeSchema = z
  .object({ user_id: z.string(), email: z.string(), group_id: z.string(), group_display_name: z.string(), role_id: z.string(), role_name: z.string(), scope_type: z.string(), scope_object_id: z.string() })
  .meta({ id: "SCIMGroupBindingChange" });

export const scimGroupMappingsResponseSchema = z
  .object({
    mappings: z.array(
      z.object({ group_display_name: z.string(), role_id: z.string(), role_name: z.string(), scope_type: z.string(), scope_object_id: z.string() }).meta({ id: "SCIMGroupMappingView" }),
    ),
    /** On PUT: the group-granted role bindings the change creates and removes (with dry_run, would). */
    bindings_to_create: z.array(bindingChangeSchema).optional(),
    bindings_to_remove: z.array(bindingChangeSchema).optional(),
  })
  .meta({ id: "SCIMGroupMappingsResponse" });

export const scimProvisionedResponseSchema = z
  .object({
    user_count: z.number().int(),
    group_count: z.number().int(),
    users: z.array(z.object({ id: z.string(), user_name: z.string(), email: z.string(), display_name: z.string(), status: z.string(), updated_at: z.string() })),
    groups: z.array(z.object({ id: z.string(), display_name: z.string(), external_id: z.string(), member_count: z.number().int(), updated_at: z.string() })),
  })
  .meta({ id: "SCIMProvisionedResponse" });

export type ScimGroupMapping = z.infer<typeof scimGroupMappingSchema>;
export type ScimGroupMappingsResponse = z.infer<typeof scimGroupMappingsResponseSchema>;
export type ScimProvisionedResponse = z.infer<typeof scimProvisionedResponseSchema>;
