import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import { fieldErrorHook } from "../field-errors";
import * as handlers from "./flags.handlers";
import * as routes from "./flags.routes";

export function registerFlags(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  const hook = fieldErrorHook(api);
  api.openapi(routes.getFeatureFlags, handlers.getFeatureFlags, hook);
}
