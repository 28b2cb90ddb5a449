import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import * as handlers from "./sso.handlers";
import * as routes from "./sso.routes";

export function registerSso(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  api.openapi(routes.listSsoProviders, handlers.listSsoProviders);
  api.openapi(routes.createSsoProvider, handlers.createSsoProvider);
  api.openapi(routes.updateSsoProvider, handlers.updateSsoProvider);
  api.openapi(routes.deleteSsoProvider, handlers.deleteSsoProvider);
}
