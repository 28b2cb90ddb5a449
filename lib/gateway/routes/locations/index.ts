import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { listLocationsResponseSchema } from "@/lib/contract/locations";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import { listLocationIds } from "../../store/queries/locations";
import { errors, json, operation } from "../shared";

export const listLocations = createRoute({
  ...operation("listLocations"),
  tags: ["Locations"],
  summary: "Lists all the cloud platform locations usable for resource hosting.",
  responses: { 200: json(listLocationsResponseSchema, "location identifiers"), ...errors(401, 500) },
});

export function registerLocations(api: OpenAPIHono<AppEnv>): void {
  declare(listLocations);
  api.openapi(listLocations, async (c) => {
    return c.json({ items: await listLocationIds(c.get("deps").db) }, 200);
  });
}
