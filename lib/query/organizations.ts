import type { z } from "zod";
import type { listEntitiesResponseSchema } from "@/lib/contract/organizations";
import { gatewayQuery } from "./gateway-query";
import { orgKeys } from "./keys";
import { operationPath } from "@/lib/contract/operations";

export type ListEntitiesResponse = z.infer<typeof listEntitiesResponseSchema>;

export const orgQueries = {
  /** GET /v1/organizations/entities: every active organization of the signed-in user. */
  entities: () => gatewayQuery<ListEntitiesResponse, ReturnType<typeof orgKeys.entities>>(orgKeys.entities(), operationPath("getOrganizations")),
};

export type Entity = ListEntitiesResponse["items"][number];

/**
 * What the caller may do in one organization, from the entity the gateway returns:
 * relation, organization-wide permissions and evaluated feature flags.
 */
export function orgAccess(entity: Entity | undefined) {
  const permissions = new Set(entity?.permissions ?? []);
  return {
    relation: entity?.relation ?? null,
    isOwner: entity?.relation === "owner",
    features: entity?.features ?? {},
    can: (permission: string) => permissions.has(permission),
  };
}
