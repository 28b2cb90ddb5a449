import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import { fieldErrorHook } from "../field-errors";
import * as handlers from "./registry.handlers";
import * as routes from "./registry.routes";

export function registerRegistry(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  const hook = fieldErrorHook(api);
  api.openapi(routes.listSupportedLocations, handlers.listSupportedLocations, hook);
  api.openapi(routes.listSupportedProviders, handlers.listSupportedProviders, hook);
  api.openapi(routes.createCcrToken, handlers.createCcrToken, hook);
}
