import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import * as handlers from "./iam.handlers";
import * as routes from "./iam.routes";

export function registerIam(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  api.openapi(routes.listRoles, handlers.listRoles);
  api.openapi(routes.listRoleBindings, handlers.listRoleBindings);
  api.openapi(routes.applyRoleBindings, handlers.applyRoleBindings);
}
