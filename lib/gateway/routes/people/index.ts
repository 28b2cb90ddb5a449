import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import * as handlers from "./people.handlers";
import * as routes from "./people.routes";

export function registerPeople(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  api.openapi(routes.listOrganizationPeople, handlers.listOrganizationPeople);
  api.openapi(routes.inviteOrganizationPerson, handlers.inviteOrganizationPerson);
  api.openapi(routes.removeOrganizationPerson, handlers.removeOrganizationPerson);
  api.openapi(routes.updateOrganizationPerson, handlers.updateOrganizationPerson);
  api.openapi(routes.resetOrganizationPersonMfa, handlers.resetOrganizationPersonMfa);
  api.openapi(routes.getCallerPermissions, handlers.getCallerPermissions);
}
