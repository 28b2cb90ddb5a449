import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import * as handlers from "./flags.handlers";
import * as routes from "./flags.routes";

export function registerFlags(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  api.openapi(routes.getFeatureFlags, handlers.getFeatureFlags);
}
