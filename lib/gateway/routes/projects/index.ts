import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import * as handlers from "./projects.handlers";
import * as routes from "./projects.routes";

export function registerProjects(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  api.openapi(routes.listProjects, handlers.listProjects);
  api.openapi(routes.createProject, handlers.createProject);
  api.openapi(routes.updateProject, handlers.updateProject);
  api.openapi(routes.getProject, handlers.getProject);
  api.openapi(routes.deleteProject, handlers.deleteProject);
  api.openapi(routes.listProjectVms, handlers.listProjectVms);
}
