import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { declare } from "../../router";
import * as handlers from "./reservations.handlers";
import * as routes from "./reservations.routes";

export function registerReservations(api: OpenAPIHono<AppEnv>): void {
  Object.values(routes).forEach(declare);
  api.openapi(routes.getReservations, handlers.getReservations);
  // The fixed paths before /reservations/{reservation_id}, which would otherwise take "gpu-tracking" for an id.
  api.openapi(routes.getReservationsGpuTracking, handlers.getReservationsGpuTracking);
  api.openapi(routes.getLatestGpuTracking, handlers.getLatestGpuTracking);
  api.openapi(routes.getReservation, handlers.getReservation);
}
