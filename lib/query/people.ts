import DataLoader from "dataloader";
import { PEOPLE_BY_ID_MAX, type CallerPermissions, type ListPeopleResponse, type Person } from "@/lib/contract/people";
import { operationPath } from "@/lib/contract/operations";
import { apiFetch } from "./fetcher";
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
  /**
   * The organization's first people, for naming people wherever their id appears: everyone, unless
   * the answer has a next page (`isPartial`); then a name not in it is looked up by id (`person`).
   */
  directory: (orgId: string) => peopleQueries.list(orgId, { limit: DIRECTORY_LIMIT }),
  /** One person by id, or null when not a person of the organization; the ids asked in one moment go in one call. */
  person: (orgId: string, userId: string) => ({
    queryKey: peopleKeys.person(orgId, userId),
    queryFn: () => personLoader(orgId).load(userId),
  }),
  /** GET /v1/organizations/{org_id}/permissions: what the caller may do, organization-wide or on one project. */
  permissions: (orgId: string, projectId?: string) =>
    gatewayQuery<CallerPermissions, ReturnType<typeof peopleKeys.permissions>>(
      peopleKeys.permissions(orgId, projectId),
      operationPath("getCallerPermissions", { org_id: orgId }),
      projectId ? { project_id: projectId } : undefined,
    ),
};

/** Whether a directory answer leaves people out (the organization has more than one page of them). */
export const isPartial = (directory: ListPeopleResponse | undefined): boolean => Boolean(directory?.next_page_token);

const loaders = new Map<string, DataLoader<string, Person | null>>();

/**
 * Batches the people asked by id within one tick into calls of up to PEOPLE_BY_ID_MAX ids each
 * (`user_id`, repeated): a table of 50 rows naming people past the directory makes one call, not 50.
 * Not a cache of its own: the query cache keeps each answer.
 */
function personLoader(orgId: string): DataLoader<string, Person | null> {
  let loader = loaders.get(orgId);
  if (!loader) {
    loader = new DataLoader<string, Person | null>(
      async (ids) => {
        const answer = await apiFetch<ListPeopleResponse>(operationPath("listOrganizationPeople", { org_id: orgId }), {
          query: { user_id: [...ids], limit: String(PEOPLE_BY_ID_MAX) },
        });
        const byId = new Map(answer.items.map((p) => [p.id, p]));
        return ids.map((id) => byId.get(id) ?? null);
      },
      { maxBatchSize: PEOPLE_BY_ID_MAX, cache: false },
    );
    loaders.set(orgId, loader);
  }
  return loader;
}

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
