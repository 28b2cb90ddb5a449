import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import * as handlers from "./organizations.handlers";
import * as routes from "./organizations.routes";

export function registerOrganizations(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  api.openapi(routes.getOrganizations, handlers.getOrganizations);
  api.openapi(routes.updateOrganization, handlers.updateOrganization);
}
