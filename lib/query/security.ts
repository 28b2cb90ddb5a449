import type { z } from "zod";
import type { getOrgMfaResponseSchema } from "@/lib/contract/mfa";
import type { listScimIntegrationsResponseSchema, listScimIntegrationTokensResponseSchema, scimIntegrationSchema } from "@/lib/contract/scim";
import type { listSsoProvidersResponseSchema } from "@/lib/contract/sso";
import { gatewayQuery, segment } from "./gateway-query";
import { securityKeys } from "./keys";

export type ListScimIntegrationsResponse = z.infer<typeof listScimIntegrationsResponseSchema>;
export type ScimIntegrationResponse = z.infer<typeof scimIntegrationSchema>;
export type ListScimTokensResponse = z.infer<typeof listScimIntegrationTokensResponseSchema>;
export type ListSsoProvidersResponse = z.infer<typeof listSsoProvidersResponseSchema>;
export type GetOrgMfaResponse = z.infer<typeof getOrgMfaResponseSchema>;

const org = (orgId: string) => `/v1/organizations/${segment(orgId)}`;

/** Gateway paths of the security area, shared by the reads below and the mutations. */
export const securityPaths = {
  scimIntegrations: (orgId: string) => `${org(orgId)}/scim/integrations`,
  scimIntegration: (orgId: string, integrationId: string) => `${org(orgId)}/scim/integrations/${segment(integrationId)}`,
  scimTokens: (orgId: string, integrationId: string) => `${org(orgId)}/scim/integrations/${segment(integrationId)}/tokens`,
  scimToken: (orgId: string, integrationId: string, keyId: string) =>
    `${org(orgId)}/scim/integrations/${segment(integrationId)}/tokens/${segment(keyId)}`,
  ssoProviders: (orgId: string) => `${org(orgId)}/sso/providers`,
  ssoProvider: (orgId: string, providerId: string) => `${org(orgId)}/sso/providers/${segment(providerId)}`,
  mfa: (orgId: string) => `${org(orgId)}/mfa`,
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
