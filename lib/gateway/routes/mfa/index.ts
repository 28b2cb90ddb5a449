import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import * as handlers from "./mfa.handlers";
import * as routes from "./mfa.routes";

export function registerMfa(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  api.openapi(routes.getOrganizationMfa, handlers.getOrganizationMfa);
  api.openapi(routes.updateOrganizationMfa, handlers.updateOrganizationMfa);
}
