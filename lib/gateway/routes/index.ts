import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { registerAuditLogs } from "./audit-logs";
import { registerBilling } from "./billing";
import { registerQuotas } from "./quotas";
import { registerReservations } from "./reservations";
import { registerUsage } from "./usage";
import { registerIam } from "./iam";
import { registerLocations } from "./locations";
import { registerOrganizations } from "./organizations";
import { registerProjects } from "./projects";
import { registerCatalog } from "./catalog";
import { registerFlags } from "./flags";
import { registerMfa } from "./mfa";
import { registerRegistry } from "./registry";
import { registerS3Keys } from "./s3";
import { registerScim } from "./scim";
import { registerSso } from "./sso";
import { registerPeople } from "./people";

/** Every area's operations; each area registers its own routes and declared statuses. */
export function registerRoutes(api: OpenAPIHono<AppEnv>): void {
  registerLocations(api);
  registerOrganizations(api);
  registerProjects(api);
  registerIam(api);
  registerPeople(api);
  registerScim(api);
  registerS3Keys(api);
  registerSso(api);
  registerMfa(api);
  registerCatalog(api);
  registerRegistry(api);
  registerFlags(api);
  registerUsage(api);
  registerBilling(api);
  registerQuotas(api);
  registerReservations(api);
  registerAuditLogs(api);
}
