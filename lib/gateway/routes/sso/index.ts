import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import { fieldErrorHook } from "../field-errors";
import * as handlers from "./sso.handlers";
import * as routes from "./sso.routes";

export function registerSso(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  const hook = fieldErrorHook(api);
  api.openapi(routes.listSsoProviders, handlers.listSsoProviders, hook);
  api.openapi(routes.createSsoProvider, handlers.createSsoProvider, hook);
  api.openapi(routes.deleteSsoProvider, handlers.deleteSsoProvider, hook);
}
