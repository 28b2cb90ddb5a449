import type { z } from "zod";
import type { getOrgMfaResponseSchema } from "@/lib/contract/mfa";
import type { listScimIntegrationsResponseSchema, listScimIntegrationTokensResponseSchema, scimIntegrationSchema, ScimGroupMappingsResponse, ScimProvisionedResponse } from "@/lib/contract/scim";
import type { listSsoProvidersResponseSchema } from "@/lib/contract/sso";
import { gatewayQuery } from "./gateway-query";
import { auditKeys, securityKeys } from "./keys";
import type { AuditLogsResponse } from "./audit-logs";
import { operationPath } from "@/lib/contract/operations";

export type ListScimIntegrationsResponse = z.infer<typeof listScimIntegrationsResponseSchema>;
export type ScimIntegrationResponse = z.infer<typeof scimIntegrationSchema>;
export type ListScimTokensResponse = z.infer<typeof listScimIntegrationTokensResponseSchema>;
export type ListSsoProvidersResponse = z.infer<typeof listSsoProvidersResponseSchema>;
export type GetOrgMfaResponse = z.infer<typeof getOrgMfaResponseSchema>;

/** Gateway paths of the security area, shared by the reads below and the mutations. */
export const securityPaths = {
  scimIntegrations: (orgId: string) => operationPath("listSCIMIntegrations", { org_id: orgId }),
  scimIntegration: (orgId: string, integrationId: string) => operationPath("getSCIMIntegration", { org_id: orgId, integration_id: integrationId }),
  scimTokens: (orgId: string, integrationId: string) => operationPath("listSCIMIntegrationTokens", { org_id: orgId, integration_id: integrationId }),
  scimToken: (orgId: string, integrationId: string, keyId: string) =>
    operationPath("deleteSCIMIntegrationToken", { org_id: orgId, integration_id: integrationId, access_key_id: keyId }),
  scimMappings: (orgId: string, integrationId: string) => operationPath("getSCIMGroupMappings", { org_id: orgId, integration_id: integrationId }),
  scimProvisioned: (orgId: string, integrationId: string) => operationPath("getSCIMIntegrationProvisioned", { org_id: orgId, integration_id: integrationId }),
  ssoProviders: (orgId: string) => operationPath("listSSOProviders", { organization_id: orgId }),
  ssoProvider: (orgId: string, providerId: string) => operationPath("deleteSSOProvider", { organization_id: orgId, provider_id: providerId }),
  mfa: (orgId: string) => operationPath("OrganizationsMFAService_GetOrganizationMFA", { organization_id: orgId }),
};

export const scimQueries = {
  /** GET /v1/organizations/{org_id}/scim/integrations */
  list: (orgId: string) =>
    gatewayQuery<ListScimIntegrationsResponse, ReturnType<typeof securityKeys.scimIntegrations>>(
      securityKeys.scimIntegrations(orgId),
      securityPaths.scimIntegrations(orgId),
    ),
  /** GET /v1/organizations/{org_id}/scim/integrations/{integration_id} */
  detail: (orgId: string, integrationId: string) =>
    gatewayQuery<ScimIntegrationResponse, ReturnType<typeof securityKeys.scimIntegration>>(
      securityKeys.scimIntegration(orgId, integrationId),
      securityPaths.scimIntegration(orgId, integrationId),
    ),
  /** GET /v1/organizations/{org_id}/scim/integrations/{integration_id}/tokens */
  tokens: (orgId: string, integrationId: string) =>
    gatewayQuery<ListScimTokensResponse, ReturnType<typeof securityKeys.scimTokens>>(
      securityKeys.scimTokens(orgId, integrationId),
      securityPaths.scimTokens(orgId, integrationId),
    ),
  /** GET /v1/organizations/{org_id}/scim/integrations/{integration_id}/group-mappings */
  mappings: (orgId: string, integrationId: string) =>
    gatewayQuery<ScimGroupMappingsResponse, ReturnType<typeof securityKeys.scimMappings>>(
      securityKeys.scimMappings(orgId, integrationId),
      securityPaths.scimMappings(orgId, integrationId),
    ),
  /** GET /v1/organizations/{org_id}/scim/integrations/{integration_id}/provisioned */
  provisioned: (orgId: string, integrationId: string) =>
    gatewayQuery<ScimProvisionedResponse, ReturnType<typeof securityKeys.scimProvisioned>>(
      securityKeys.scimProvisioned(orgId, integrationId),
      securityPaths.scimProvisioned(orgId, integrationId),
    ),
  /**
   * GET …/audit-logs of the integration as actor over the last 30 days (what the identity provider did
   * lately). The key holds no time: the server's prefetch is the browser's query, and an audit-log
   * change refreshes it with the rest of the organization's audit queries.
   */
  activity: (orgId: string, integrationId: string) =>
    gatewayQuery<AuditLogsResponse, readonly [...ReturnType<typeof auditKeys.org>, "scim-activity", string]>(
      [...auditKeys.org(orgId), "scim-activity", integrationId] as const,
      operationPath("getAuditLogs", { organization_id: orgId }),
      { actor_ids: integrationId, start_time: new Date(Date.now() - 30 * 86_400_000).toISOString(), limit: "20" },
    ),
};

export const ssoQueries = {
  /** GET /v1/organizations/{organization_id}/sso/providers */
  list: (orgId: string) =>
    gatewayQuery<ListSsoProvidersResponse, ReturnType<typeof securityKeys.ssoProviders>>(securityKeys.ssoProviders(orgId), securityPaths.ssoProviders(orgId)),
};

export const mfaQueries = {
  /** GET /v1/organizations/{organization_id}/mfa */
  get: (orgId: string) => gatewayQuery<GetOrgMfaResponse, ReturnType<typeof securityKeys.mfa>>(securityKeys.mfa(orgId), securityPaths.mfa(orgId)),
};
