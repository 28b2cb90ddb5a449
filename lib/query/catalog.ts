import type { z } from "zod";
import type { imageSchema, listCapacitiesResponseSchema, listImagesResponseSchema } from "@/lib/contract/catalog";
import type { listLocationsResponseSchema } from "@/lib/contract/locations";
import type { ccrTokenResponseSchema, listSupportedLocationsResponseSchema, listSupportedProvidersResponseSchema } from "@/lib/contract/registry";
import { gatewayQuery } from "./gateway-query";
import { catalogKeys } from "./keys";
import { operationPath } from "@/lib/contract/operations";

export type ListLocationsResponse = z.infer<typeof listLocationsResponseSchema>;
export type ListCapacitiesResponse = z.infer<typeof listCapacitiesResponseSchema>;
export type ListImagesResponse = z.infer<typeof listImagesResponseSchema>;
export type CatalogImage = z.infer<typeof imageSchema>;
export type SupportedLocations = z.infer<typeof listSupportedLocationsResponseSchema>;
export type SupportedProviders = z.infer<typeof listSupportedProvidersResponseSchema>;
export type CcrTokenResponse = z.infer<typeof ccrTokenResponseSchema>;

export interface CapacityFilters {
  product_name?: string[];
  location?: string[];
}

/** Sorted, without duplicates or blanks, so the same filter is always the same key. */
function normalized(values: string[] | undefined): string[] | undefined {
  const list = [...new Set((values ?? []).map((v) => v.trim()).filter(Boolean))].sort();
  return list.length ? list : undefined;
}

export const catalogQueries = {
  /** GET /v1/locations */
  locations: () => gatewayQuery<ListLocationsResponse, ReturnType<typeof catalogKeys.locations>>(catalogKeys.locations(), operationPath("listLocations")),
  /** GET /v1/capacities; several values of one filter are OR-ed (sent comma-separated). */
  capacities: (filters: CapacityFilters = {}) => {
    const product = normalized(filters.product_name);
    const location = normalized(filters.location);
    const query = { product_name: product?.join(","), location: location?.join(",") };
    return gatewayQuery<ListCapacitiesResponse, ReturnType<typeof catalogKeys.capacities>>(catalogKeys.capacities(query), operationPath("listSliceCapacities"), query);
  },
  /** GET /v1/compute/images, only those compatible with the product group when given. */
  images: (productGroup?: string) => {
    const query = { product_group: productGroup || undefined };
    return gatewayQuery<ListImagesResponse, ReturnType<typeof catalogKeys.images>>(catalogKeys.images(query), operationPath("listImages"), query);
  },
  /** GET /v1/compute/images/{image_id} */
  image: (imageId: string) =>
    gatewayQuery<CatalogImage, ReturnType<typeof catalogKeys.image>>(catalogKeys.image(imageId), operationPath("getImage", { image_id: imageId })),
  /** GET /v1/ccr/supported-locations */
  registryLocations: () =>
    gatewayQuery<SupportedLocations, ReturnType<typeof catalogKeys.registryLocations>>(catalogKeys.registryLocations(), operationPath("listSupportedLocations")),
  /** GET /v1/ccr/supported-providers */
  registryProviders: () =>
    gatewayQuery<SupportedProviders, ReturnType<typeof catalogKeys.registryProviders>>(catalogKeys.registryProviders(), operationPath("listSupportedProviders")),
};
