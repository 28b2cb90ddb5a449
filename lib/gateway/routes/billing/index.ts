import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import * as handlers from "./billing.handlers";
import * as routes from "./billing.routes";

export function registerBilling(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  api.openapi(routes.getBillingCosts, handlers.getBillingCosts);
  api.openapi(routes.getBillingExportProductline, handlers.getBillingExportProductline);
  api.openapi(routes.getBillingOptions, handlers.getBillingOptions);
}
