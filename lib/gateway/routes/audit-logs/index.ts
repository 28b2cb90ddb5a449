import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import * as handlers from "./audit-logs.handlers";
import * as routes from "./audit-logs.routes";

export function registerAuditLogs(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  api.openapi(routes.getAuditLogs, handlers.getAuditLogs);
}
