import type { z } from "zod";
import type { listLocationsResponseSchema } from "@/lib/contract/locations";
import { gatewayQuery } from "./gateway-query";
import { catalogKeys } from "./keys";

export type ListLocationsResponse = z.infer<typeof listLocationsResponseSchema>;

export const catalogQueries = {
  /** GET /v1/locations */
  locations: () => gatewayQuery<ListLocationsResponse, ReturnType<typeof catalogKeys.locations>>(catalogKeys.locations(), "/v1/locations"),
};
