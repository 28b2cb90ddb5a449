import { createRoute } from "@hono/zod-openapi";
import {
  gpuTrackingQuerySchema,
  gpuTrackingResponseSchema,
  latestGpuTrackingQuerySchema,
  latestGpuTrackingSchema,
  reservationPathSchema,
  reservationsGetResponseSchema,
  reservationsQuerySchema,
} from "@/lib/contract/reservations";
import { organizationPathSchema } from "@/lib/contract/usage";
import { errors, json, operation } from "../shared";

const tags = ["Reservations"];

export const getReservations = createRoute({
  ...operation("getReservations"),
  tags,
  summary: "Get all reservations belonging to the specified organization. User must be part of the organization.",
  description: "status: effective, pending, expired or cancelled; absent means all.",
  request: { params: organizationPathSchema, query: reservationsQuerySchema },
  responses: { 200: json(reservationsGetResponseSchema, "reservations"), ...errors(400, 401, 403, 500) },
});

export const getReservationsGpuTracking = createRoute({
  ...operation("getReservationsGPUTracking"),
  tags,
  summary:
    "Get GPU tracking data for the specified organization. User must be part of the organization and have reservations feature access.",
  description: "Without start_time and end_time, the last 30 days.",
  request: { params: organizationPathSchema, query: gpuTrackingQuerySchema },
  responses: { 200: json(gpuTrackingResponseSchema, "GPU tracking data"), ...errors(400, 401, 403, 500) },
});

export const getLatestGpuTracking = createRoute({
  ...operation("getLatestGPUTracking"),
  tags,
  summary:
    "Get latest GPU tracking data for the specified organization. User must be part of the organization and have reservations feature access.",
  request: { params: organizationPathSchema, query: latestGpuTrackingQuerySchema },
  responses: { 200: json(latestGpuTrackingSchema, "latest GPU tracking data"), ...errors(400, 401, 403, 500) },
});

export const getReservation = createRoute({
  ...operation("getReservation"),
  tags,
  summary: "Get reservation belonging to the specified organization and reservation ID. User must be part of the organization.",
  request: { params: reservationPathSchema },
  responses: { 200: json(reservationsGetResponseSchema, "the reservation"), ...errors(400, 401, 403, 404, 500) },
});
