"use client";

import { useQuery } from "@tanstack/react-query";
import { orgAccess, orgQueries } from "@/lib/query/organizations";

/** The caller's access in one organization, from the (prefetched) entity listing. */
export function useOrgAccess(orgId: string) {
  const entities = useQuery(orgQueries.entities());
  const entity = entities.data?.items.find((o) => o.id === orgId);
  return { ...orgAccess(entity), ready: entities.isSuccess };
}

/** Why an action is disabled: said on the control (title) and in a note beside it. */
export function missingPermission(permission: string): string {
  return `Needs the ${permission} permission, which you don't have in this organization. Ask an owner of the organization for it.`;
}
