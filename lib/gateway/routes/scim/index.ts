import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import { fieldErrorHook } from "../field-errors";
import * as handlers from "./scim.handlers";
import * as routes from "./scim.routes";

export function registerScim(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  const hook = fieldErrorHook(api);
  api.openapi(routes.listScimIntegrations, handlers.listScimIntegrations, hook);
  api.openapi(routes.createScimIntegration, handlers.createScimIntegration, hook);
  api.openapi(routes.getScimIntegration, handlers.getScimIntegration, hook);
  api.openapi(routes.updateScimIntegration, handlers.updateScimIntegration, hook);
  api.openapi(routes.deleteScimIntegration, handlers.deleteScimIntegration, hook);
  api.openapi(routes.listScimIntegrationTokens, handlers.listScimIntegrationTokens, hook);
  api.openapi(routes.createScimIntegrationToken, handlers.createScimIntegrationToken, hook);
  api.openapi(routes.deleteScimIntegrationToken, handlers.deleteScimIntegrationToken, hook);
}
