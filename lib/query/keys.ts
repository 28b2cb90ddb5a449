/**
 * Query-key factories, one per area: every key starts with its area's root so a
 * mutation can invalidate a whole area, one organization, or one list.
 * Browser-safe.
 */

type Filters = Record<string, string | string[] | boolean | number | undefined>;

export const orgKeys = {
  all: ["orgs"] as const,
  entities: () => [...orgKeys.all, "entities"] as const,
  detail: (orgId: string) => [...orgKeys.all, "detail", orgId] as const,
};

export const projectKeys = {
  all: ["projects"] as const,
  lists: () => [...projectKeys.all, "list"] as const,
  list: (filters: Filters = {}) => [...projectKeys.lists(), filters] as const,
  details: () => [...projectKeys.all, "detail"] as const,
  detail: (projectId: string) => [...projectKeys.details(), projectId] as const,
  vms: (projectId: string) => [...projectKeys.detail(projectId), "vms"] as const,
};

export const iamKeys = {
  all: ["iam"] as const,
  roles: () => [...iamKeys.all, "roles"] as const,
  bindingLists: () => [...iamKeys.all, "bindings"] as const,
  bindings: (filters: Filters = {}) => [...iamKeys.bindingLists(), filters] as const,
};

export const billingKeys = {
  all: ["billing"] as const,
  org: (orgId: string) => [...billingKeys.all, orgId] as const,
  costs: (orgId: string, range: Filters = {}) => [...billingKeys.org(orgId), "costs", range] as const,
  options: (orgId: string, range: Filters = {}) => [...billingKeys.org(orgId), "options", range] as const,
};

export const usageKeys = {
  all: ["usage"] as const,
  org: (orgId: string) => [...usageKeys.all, orgId] as const,
  report: (orgId: string, filters: Filters = {}) => [...usageKeys.org(orgId), "report", filters] as const,
  options: (orgId: string) => [...usageKeys.org(orgId), "options"] as const,
};

export const quotaKeys = {
  all: ["quotas"] as const,
  org: (orgId: string) => [...quotaKeys.all, orgId] as const,
};

export const reservationKeys = {
  all: ["reservations"] as const,
  org: (orgId: string) => [...reservationKeys.all, orgId] as const,
  list: (orgId: string, filters: Filters = {}) => [...reservationKeys.org(orgId), "list", filters] as const,
  detail: (orgId: string, reservationId: string) => [...reservationKeys.org(orgId), "detail", reservationId] as const,
  gpuTracking: (orgId: string, filters: Filters = {}) => [...reservationKeys.org(orgId), "gpu-tracking", filters] as const,
  gpuTrackingLatest: (orgId: string, filters: Filters = {}) => [...reservationKeys.org(orgId), "gpu-tracking-latest", filters] as const,
};

export const auditKeys = {
  all: ["audit-logs"] as const,
  org: (orgId: string) => [...auditKeys.all, orgId] as const,
  search: (orgId: string, filters: Filters = {}) => [...auditKeys.org(orgId), filters] as const,
};

export const catalogKeys = {
  all: ["catalog"] as const,
  locations: () => [...catalogKeys.all, "locations"] as const,
  capacities: (filters: Filters = {}) => [...catalogKeys.all, "capacities", filters] as const,
  images: (filters: Filters = {}) => [...catalogKeys.all, "images", filters] as const,
  image: (imageId: string) => [...catalogKeys.all, "image", imageId] as const,
  registryLocations: () => [...catalogKeys.all, "ccr", "locations"] as const,
  registryProviders: () => [...catalogKeys.all, "ccr", "providers"] as const,
};

export const flagKeys = {
  all: ["featureflags"] as const,
  evaluated: (projectId?: string) => [...flagKeys.all, { project_id: projectId }] as const,
};

export const securityKeys = {
  all: ["security"] as const,
  org: (orgId: string) => [...securityKeys.all, orgId] as const,
  scimIntegrations: (orgId: string) => [...securityKeys.org(orgId), "scim"] as const,
  scimIntegration: (orgId: string, integrationId: string) => [...securityKeys.scimIntegrations(orgId), integrationId] as const,
  scimTokens: (orgId: string, integrationId: string) => [...securityKeys.scimIntegration(orgId, integrationId), "tokens"] as const,
  scimMappings: (orgId: string, integrationId: string) => [...securityKeys.scimIntegration(orgId, integrationId), "group-mappings"] as const,
  scimProvisioned: (orgId: string, integrationId: string) => [...securityKeys.scimIntegration(orgId, integrationId), "provisioned"] as const,
  ssoProviders: (orgId: string) => [...securityKeys.org(orgId), "sso"] as const,
  mfa: (orgId: string) => [...securityKeys.org(orgId), "mfa"] as const,
};

export const storageKeys = {
  all: ["storage"] as const,
  org: (orgId: string) => [...storageKeys.all, orgId] as const,
  s3Keys: (orgId: string) => [...storageKeys.org(orgId), "s3-keys"] as const,
};

export const peopleKeys = {
  all: ["people"] as const,
  org: (orgId: string) => [...peopleKeys.all, orgId] as const,
  list: (orgId: string, filters: Filters = {}) => [...peopleKeys.org(orgId), "list", filters] as const,
  /** One person by id (for a name the directory's first page leaves out). */
  person: (orgId: string, userId: string) => [...peopleKeys.org(orgId), "person", userId] as const,
  /** What the caller may do in the organization, organization-wide and on every project. */
  permissionsIn: (orgId: string) => [...peopleKeys.org(orgId), "permissions"] as const,
  permissions: (orgId: string, projectId?: string) => [...peopleKeys.permissionsIn(orgId), projectId ?? ""] as const,
};
