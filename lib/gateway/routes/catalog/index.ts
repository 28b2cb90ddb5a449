import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import { fieldErrorHook } from "../field-errors";
import * as handlers from "./catalog.handlers";
import * as routes from "./catalog.routes";

export function registerCatalog(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  const hook = fieldErrorHook(api);
  api.openapi(routes.listCapacities, handlers.listCapacities, hook);
  api.openapi(routes.listImages, handlers.listImages, hook);
  api.openapi(routes.getImage, handlers.getImage, hook);
}
