import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import * as handlers from "./quotas.handlers";
import * as routes from "./quotas.routes";

export function registerQuotas(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  api.openapi(routes.listOrgQuotas, handlers.listOrgQuotas);
}
