import { createRoute } from "@hono/zod-openapi";
import {
  imagePathSchema,
  imageSchema,
  listCapacitiesQuerySchema,
  listCapacitiesResponseSchema,
  listImagesQuerySchema,
  listImagesResponseSchema,
} from "@/lib/contract/catalog";
import { errors, json, operation } from "../shared";

export const listCapacities = createRoute({
  ...operation("listSliceCapacities"),
  tags: ["Capacities"],
  summary: "Lists available the cloud platform capacity with optional filters on location and product name.",
  description: "Each filter takes repeated or comma-separated values; a row matches when it matches any of them.",
  request: { query: listCapacitiesQuerySchema },
  responses: { 200: json(listCapacitiesResponseSchema, "available capacity"), ...errors(400, 401, 403, 500) },
});

export const listImages = createRoute({
  ...operation("listImages"),
  tags: ["Images"],
  summary: "Lists all images and returns their details.",
  request: { query: listImagesQuerySchema },
  responses: { 200: json(listImagesResponseSchema, "images"), ...errors(400, 401, 500) },
});

export const getImage = createRoute({
  ...operation("getImage"),
  tags: ["Images"],
  summary: "Returns details for a single image.",
  request: { params: imagePathSchema },
  responses: { 200: json(imageSchema, "the image"), ...errors(400, 401, 404, 500) },
});
