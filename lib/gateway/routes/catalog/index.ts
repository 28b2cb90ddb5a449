import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import * as handlers from "./catalog.handlers";
import * as routes from "./catalog.routes";

export function registerCatalog(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  api.openapi(routes.listCapacities, handlers.listCapacities);
  api.openapi(routes.listImages, handlers.listImages);
  api.openapi(routes.getImage, handlers.getImage);
}
