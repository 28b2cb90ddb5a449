"use client";

import { useQuery } from "@tanstack/react-query";
import { orgAccess, orgQueries } from "@/lib/query/organizations";

/** The organization's entity (from the caller's list) and what the caller may do in it. */
export function useOrg(orgId: string) {
  const state = useQuery(orgQueries.entities());
  const entity = state.data?.items.find((o) => o.id === orgId);
  return { state, entity, access: orgAccess(entity) };
}
