import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import * as handlers from "./usage.handlers";
import * as routes from "./usage.routes";

export function registerUsage(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  api.openapi(routes.getUsage, handlers.getUsage);
  api.openapi(routes.getUsageExport, handlers.getUsageExport);
  api.openapi(routes.getUsageOptions, handlers.getUsageOptions);
}
