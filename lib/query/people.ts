import type { CallerPermissions, ListPeopleResponse, Person } from "@/lib/contract/people";
import { operationPath } from "@/lib/contract/operations";
import { gatewayQuery } from "./gateway-query";
import { peopleKeys } from "./keys";

export type { CallerPermissions, ListPeopleResponse, Person };

export interface PeopleFilters {
  q?: string;
  status?: "active" | "suspended";
  limit?: string;
  next_token?: string;
  prev_token?: string;
}

/** Enough to name everyone of an organization in one answer (the gateway's largest page). */
export const DIRECTORY_LIMIT = "500";

const clean = (f: PeopleFilters) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined && v !== "")) as PeopleFilters;

export const peopleQueries = {
  /** GET /v1/organizations/{org_id}/users */
  list: (orgId: string, filters: PeopleFilters = {}) =>
    gatewayQuery<ListPeopleResponse, ReturnType<typeof peopleKeys.list>>(
      peopleKeys.list(orgId, { ...clean(filters) }),
      operationPath("listOrganizationPeople", { org_id: orgId }),
      { ...clean(filters) },
    ),
  /** Everyone of the organization, for naming people wherever their id appears. */
  directory: (orgId: string) => peopleQueries.list(orgId, { limit: DIRECTORY_LIMIT }),
  /** GET /v1/organizations/{org_id}/permissions: what the caller may do, organization-wide or on one project. */
  permissions: (orgId: string, projectId?: string) =>
    gatewayQuery<CallerPermissions, ReturnType<typeof peopleKeys.permissions>>(
      peopleKeys.permissions(orgId, projectId),
      operationPath("getCallerPermissions", { org_id: orgId }),
      projectId ? { project_id: projectId } : undefined,
    ),
};

export const peoplePaths = {
  invite: (orgId: string) => operationPath("inviteOrganizationPerson", { org_id: orgId }),
  remove: (orgId: string, userId: string) => operationPath("removeOrganizationPerson", { org_id: orgId, user_id: userId }),
  update: (orgId: string, userId: string) => operationPath("updateOrganizationPerson", { org_id: orgId, user_id: userId }),
  resetMfa: (orgId: string, userId: string) => operationPath("resetOrganizationPersonMfa", { org_id: orgId, user_id: userId }),
};

/** Where the console shows one person: the People page, filtered to their e-mail. */
export function personHref(orgId: string, email: string): string {
  return `/orgs/${orgId}/people?q=${encodeURIComponent(email)}`;
}
