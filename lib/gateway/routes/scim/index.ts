import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import * as handlers from "./scim.handlers";
import * as routes from "./scim.routes";

export function registerScim(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  api.openapi(routes.listScimIntegrations, handlers.listScimIntegrations);
  api.openapi(routes.createScimIntegration, handlers.createScimIntegration);
  api.openapi(routes.getScimIntegration, handlers.getScimIntegration);
  api.openapi(routes.updateScimIntegration, handlers.updateScimIntegration);
  api.openapi(routes.deleteScimIntegration, handlers.deleteScimIntegration);
  api.openapi(routes.listScimIntegrationTokens, handlers.listScimIntegrationTokens);
  api.openapi(routes.createScimIntegrationToken, handlers.createScimIntegrationToken);
  api.openapi(routes.deleteScimIntegrationToken, handlers.deleteScimIntegrationToken);
  api.openapi(routes.getScimGroupMappings, handlers.getScimGroupMappings);
  api.openapi(routes.putScimGroupMappings, handlers.putScimGroupMappings);
  api.openapi(routes.getScimIntegrationProvisioned, handlers.getScimIntegrationProvisioned);
}
