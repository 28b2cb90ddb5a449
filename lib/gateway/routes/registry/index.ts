import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import * as handlers from "./registry.handlers";
import * as routes from "./registry.routes";

export function registerRegistry(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  api.openapi(routes.listSupportedLocations, handlers.listSupportedLocations);
  api.openapi(routes.listSupportedProviders, handlers.listSupportedProviders);
  api.openapi(routes.createCcrToken, handlers.createCcrToken);
}
