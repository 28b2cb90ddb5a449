import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import { fieldErrorHook } from "../field-errors";
import * as handlers from "./s3.handlers";
import * as routes from "./s3.routes";

export function registerS3Keys(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  const hook = fieldErrorHook(api);
  api.openapi(routes.listS3Keys, handlers.listS3Keys, hook);
  api.openapi(routes.createS3Key, handlers.createS3Key, hook);
  api.openapi(routes.deleteS3Key, handlers.deleteS3Key, hook);
}
