/**
 * Every operation of the gateway: operationId → HTTP method and path (under /v1 and /v1alpha5).
 * Free of zod, so browser code and the console's server read it without the schemas: the
 * gateway's routes, the backend-for-frontend's allow-list, lib/query and the tests all take
 * their paths from here (operations.test.ts holds the gateway's routes to it).
 */

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

export interface OperationSpec {
  readonly method: HttpMethod;
  readonly path: string;
}

export const operations = {
  // Locations
  listLocations: { method: "get", path: "/locations" },
  // Entities
  getOrganizations: { method: "get", path: "/organizations/entities" },
  updateOrganization: { method: "put", path: "/organizations/entities" },
  // Projects
  listProjects: { method: "get", path: "/organizations/projects" },
  createProject: { method: "post", path: "/organizations/projects" },
  updateProject: { method: "put", path: "/organizations/projects" },
  getProject: { method: "get", path: "/organizations/projects/{project_id}" },
  deleteProject: { method: "delete", path: "/organizations/projects/{project_id}" },
  listProjectVMs: { method: "get", path: "/organizations/projects/{project_id}/vms" },
  // Roles
  listRoles: { method: "get", path: "/iam/roles" },
  // RoleBindings
  listRoleBindings: { method: "get", path: "/iam/role-bindings" },
  applyRoleBindings: { method: "post", path: "/iam/users/{user_id}/role-bindings" },
  // SCIM
  listSCIMIntegrations: { method: "get", path: "/organizations/{org_id}/scim/integrations" },
  createSCIMIntegration: { method: "post", path: "/organizations/{org_id}/scim/integrations" },
  getSCIMIntegration: { method: "get", path: "/organizations/{org_id}/scim/integrations/{integration_id}" },
  updateSCIMIntegration: { method: "patch", path: "/organizations/{org_id}/scim/integrations/{integration_id}" },
  deleteSCIMIntegration: { method: "delete", path: "/organizations/{org_id}/scim/integrations/{integration_id}" },
  listSCIMIntegrationTokens: { method: "get", path: "/organizations/{org_id}/scim/integrations/{integration_id}/tokens" },
  createSCIMIntegrationToken: { method: "post", path: "/organizations/{org_id}/scim/integrations/{integration_id}/tokens" },
  deleteSCIMIntegrationToken: { method: "delete", path: "/organizations/{org_id}/scim/integrations/{integration_id}/tokens/{access_key_id}" },
  getSCIMGroupMappings: { method: "get", path: "/organizations/{org_id}/scim/integrations/{integration_id}/group-mappings" },
  putSCIMGroupMappings: { method: "put", path: "/organizations/{org_id}/scim/integrations/{integration_id}/group-mappings" },
  getSCIMIntegrationProvisioned: { method: "get", path: "/organizations/{org_id}/scim/integrations/{integration_id}/provisioned" },
  // S3Keys
  listS3Keys: { method: "get", path: "/organizations/{org_id}/storage/s3/keys" },
  createS3Key: { method: "post", path: "/organizations/{org_id}/storage/s3/keys" },
  deleteS3Key: { method: "delete", path: "/organizations/{org_id}/storage/s3/keys/{access_key_id}" },
  // SSO
  listSSOProviders: { method: "get", path: "/organizations/{organization_id}/sso/providers" },
  createSSOProvider: { method: "post", path: "/organizations/{organization_id}/sso/providers" },
  updateSSOProvider: { method: "patch", path: "/organizations/{organization_id}/sso/providers/{provider_id}" },
  deleteSSOProvider: { method: "delete", path: "/organizations/{organization_id}/sso/providers/{provider_id}" },
  // MFA
  OrganizationsMFAService_GetOrganizationMFA: { method: "get", path: "/organizations/{organization_id}/mfa" },
  OrganizationsMFAService_UpdateOrganizationMFA: { method: "patch", path: "/organizations/{organization_id}/mfa" },
  // Capacities
  listSliceCapacities: { method: "get", path: "/capacities" },
  // Images
  listImages: { method: "get", path: "/compute/images" },
  getImage: { method: "get", path: "/compute/images/{image_id}" },
  // Ccr
  listSupportedLocations: { method: "get", path: "/ccr/supported-locations" },
  listSupportedProviders: { method: "get", path: "/ccr/supported-providers" },
  createCcrToken: { method: "post", path: "/ccr/tokens" },
  // Feature Flags
  getFeatureFlags: { method: "get", path: "/featureflags" },
  // Usage
  getUsage: { method: "get", path: "/organizations/{org_id}/usage" },
  getUsageExport: { method: "get", path: "/organizations/{organization_id}/usage/export" },
  getUsageOptions: { method: "get", path: "/organizations/{organization_id}/usage/options" },
  // Billing
  getBillingCosts: { method: "get", path: "/organizations/{organization_id}/billing/costs" },
  getBillingExportProductline: { method: "get", path: "/organizations/{organization_id}/billing/export-productline" },
  getBillingOptions: { method: "get", path: "/organizations/{organization_id}/billing/options" },
  // Quotas
  listOrgQuotas: { method: "get", path: "/organizations/{organization_id}/quotas" },
  // Reservations
  getReservations: { method: "get", path: "/organizations/{organization_id}/reservations" },
  getReservationsGPUTracking: { method: "get", path: "/organizations/{organization_id}/reservations/gpu-tracking" },
  getLatestGPUTracking: { method: "get", path: "/organizations/{organization_id}/reservations/gpu-tracking/latest" },
  getReservation: { method: "get", path: "/organizations/{organization_id}/reservations/{reservation_id}" },
  // Audit Logs
  getAuditLogs: { method: "get", path: "/organizations/{organization_id}/audit-logs" },
  // People (beyond the upstream document)
  listOrganizationPeople: { method: "get", path: "/organizations/{org_id}/users" },
  inviteOrganizationPerson: { method: "post", path: "/organizations/{org_id}/users" },
  removeOrganizationPerson: { method: "delete", path: "/organizations/{org_id}/users/{user_id}" },
  updateOrganizationPerson: { method: "patch", path: "/organizations/{org_id}/users/{user_id}" },
  resetOrganizationPersonMfa: { method: "delete", path: "/organizations/{org_id}/users/{user_id}/mfa" },
  getCallerPermissions: { method: "get", path: "/organizations/{org_id}/permissions" },
} as const satisfies Record<string, OperationSpec>;

export type OperationId = keyof typeof operations;

/** The API's version prefixes: every operation answers under each. */
export const VERSION_PREFIXES = ["/v1", "/v1alpha5"] as const;

type PathParams<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParams<Rest> : never;

/** The parameters an operation's path names, e.g. { project_id: string } for getProject. */
export type OperationParams<Id extends OperationId> = { [K in PathParams<(typeof operations)[Id]["path"]>]: string };

/**
 * An operation's path under /v1 with its parameters filled in (each one escaped as a single
 * segment): operationPath("getProject", { project_id: id }) → "/v1/organizations/projects/<id>".
 */
export function operationPath<Id extends OperationId>(id: Id, ...[params]: keyof OperationParams<Id> extends never ? [] : [OperationParams<Id>]): string {
  const path = operations[id].path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = (params as Record<string, string> | undefined)?.[name];
    if (value === undefined) throw new Error(`${id}: path parameter ${name} is missing`);
    return encodeURIComponent(value);
  });
  return `/v1${path}`;
}

interface Compiled {
  id: OperationId;
  method: string;
  pattern: RegExp;
  params: number;
}

let compiled: Compiled[] | undefined;

/** Most specific first: a static segment wins over a parameter (/reservations/gpu-tracking before /reservations/{id}). */
function compile(): Compiled[] {
  compiled ??= (Object.entries(operations) as [OperationId, OperationSpec][])
    .map(([id, op]) => ({
      id,
      method: op.method.toUpperCase(),
      pattern: new RegExp(`^${op.path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
      params: (op.path.match(/\{/g) ?? []).length,
    }))
    .sort((a, b) => a.params - b.params);
  return compiled;
}

/** The operation a method and path (without version prefix) are for, if any. */
export function matchOperation(method: string, path: string): OperationId | undefined {
  const upper = method.toUpperCase();
  return compile().find((op) => op.method === upper && op.pattern.test(path))?.id;
}

const VERSIONED = /^\/(v1|v1alpha5)(\/.*)$/;

/** The operation a versioned path (/v1/… or /v1alpha5/…) is for, if any. */
export function matchVersionedOperation(method: string, versionedPath: string): OperationId | undefined {
  const match = VERSIONED.exec(versionedPath);
  return match ? matchOperation(method, match[2] ?? "") : undefined;
}
