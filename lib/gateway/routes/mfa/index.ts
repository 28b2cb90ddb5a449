import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import { fieldErrorHook } from "../field-errors";
import * as handlers from "./mfa.handlers";
import * as routes from "./mfa.routes";

export function registerMfa(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  const hook = fieldErrorHook(api);
  api.openapi(routes.getOrganizationMfa, handlers.getOrganizationMfa, hook);
  api.openapi(routes.updateOrganizationMfa, handlers.updateOrganizationMfa, hook);
}
