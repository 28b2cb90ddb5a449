"use client";

import { useQuery } from "@tanstack/react-query";
import { orgAccess, orgQueries } from "@/lib/query/organizations";

/** The organization's entity (from the caller's list) and what the caller may do in it. */
export function useOrg(orgId: string) {
  const state = useQuery(orgQueries.entities());
  const entity = state.data?.items.find((o) => o.id === orgId);
  return { state, entity, access: orgAccess(entity) };
}

/** The caller's access in one organization, from the (prefetched) entity listing. */
export function useOrgAccess(orgId: string) {
  const { state, access } = useOrg(orgId);
  return { ...access, ready: state.isSuccess };
}

/** Why an action is disabled: said on the control (title) and in a note beside it. */
export function missingPermission(permission: string): string {
  return `Needs the ${permission} permission, which you don't have in this organization. Ask an owner of the organization for it.`;
}
