import { createLoader, parseAsArrayOf, parseAsString } from "nuqs/server";

/** URL state of the catalog pages, shared by the client hooks and the server loaders. */
export const capacityParams = {
  product_name: parseAsArrayOf(parseAsString).withDefault([]),
  location: parseAsArrayOf(parseAsString).withDefault([]),
};

export const imageParams = {
  product_group: parseAsString,
};

export const loadCapacityParams = createLoader(capacityParams);
export const loadImageParams = createLoader(imageParams);

/** "h100-80gb-sxm-ib.8x" → "h100": the product group a VM type belongs to. */
export function productGroupOf(type: string): string {
  return type.split("-")[0] ?? type;
}
