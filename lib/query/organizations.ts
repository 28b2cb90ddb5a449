import type { z } from "zod";
import type { listEntitiesResponseSchema } from "@/lib/contract/organizations";
import { gatewayQuery } from "./gateway-query";
import { orgKeys } from "./keys";

export type ListEntitiesResponse = z.infer<typeof listEntitiesResponseSchema>;

export const orgQueries = {
  /** GET /v1/organizations/entities: every active organization of the signed-in user. */
  entities: () => gatewayQuery<ListEntitiesResponse, ReturnType<typeof orgKeys.entities>>(orgKeys.entities(), "/v1/organizations/entities"),
};
