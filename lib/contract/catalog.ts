import { z } from "zod";
import { queryArray } from "./common";

const CATALOG_VALUE = /^[A-Za-z0-9._-]+$/;

/** Repeated or comma-separated names; several values are OR-ed. */
const catalogFilter = () =>
  queryArray({ commaSeparated: true }).refine(
    (values) => values === undefined || values.every((v) => CATALOG_VALUE.test(v)),
    "values may hold only letters, digits, dots, dashes and underscores",
  );

export const listCapacitiesQuerySchema = z.object({
  product_name: catalogFilter().meta({ example: ["h100-80gb-sxm-ib.8x", "l40s-48gb.1x"] }),
  location: catalogFilter().meta({ example: ["us-east1-a", "us-northcentral1-a"] }),
});

export const capacitySchema = z
  .object({
    location: z.string().meta({ example: "us-east1-a" }),
    num_slices: z.number().int().meta({ description: "Number of slices that make up the resource" }),
    quantity: z.number().int().meta({ example: 8 }),
    quota_type: z.string().meta({ description: "The quota type consumed by this resource" }),
    type: z.string().meta({ example: "h100-80gb-sxm-ib.8x" }),
  })
  .meta({ id: "CapacityV1" });

export const listCapacitiesResponseSchema = z.object({ items: z.array(capacitySchema) }).meta({ id: "ListCapacitiesResponseV1" });

// Any product_group is accepted, and one that names no group matches nothing; only a value the store cannot keep (a NUL,
// half a surrogate pair) is refused, with the 400 the router gives it in every operation.
export const listImagesQuerySchema = z.object({
  product_group: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .meta({ type: "string", example: "h100", description: "Only images compatible with this product group" } as never),
});

export const imagePathSchema = z.object({ image_id: z.guid({ message: "must be an image id (UUID)" }) });

export const imageSchema = z
  .object({
    id: z.string(),
    name: z.string().meta({ example: "ubuntu" }),
    description: z.string(),
    tags: z.array(z.string()).meta({ example: ["22.04", "latest"] }),
    created_at: z.string(),
    locations: z.array(z.string()).meta({ example: ["us-east1", "us-northcentral1"] }),
  })
  .meta({ id: "Image" });

export const listImagesResponseSchema = z.object({ items: z.array(imageSchema) }).meta({ id: "ListImagesResponseV1" });

export type Capacity = z.infer<typeof capacitySchema>;
export type Image = z.infer<typeof imageSchema>;
