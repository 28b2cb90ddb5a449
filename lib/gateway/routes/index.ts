import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { registerIam } from "./iam";
import { registerLocations } from "./locations";
import { registerOrganizations } from "./organizations";
import { registerProjects } from "./projects";

/** Every area's operations; each area registers its own routes and declared statuses. */
export function registerRoutes(api: OpenAPIHono<AppEnv>): void {
  registerLocations(api);
  registerOrganizations(api);
  registerProjects(api);
  registerIam(api);
}
