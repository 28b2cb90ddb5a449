import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import * as handlers from "./s3.handlers";
import * as routes from "./s3.routes";

export function registerS3Keys(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  api.openapi(routes.listS3Keys, handlers.listS3Keys);
  api.openapi(routes.createS3Key, handlers.createS3Key);
  api.openapi(routes.deleteS3Key, handlers.deleteS3Key);
}
