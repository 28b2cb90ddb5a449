import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import type { gpuTrackingResponseSchema, latestGpuTrackingSchema, ReservationStatus, reservationsGetResponseSchema } from "@/lib/contract/reservations";
import { apiFetch, toQueryString, type QueryParams } from "./fetcher";
import { gatewayQuery } from "./gateway-query";
import { reservationKeys } from "./keys";
import { operationPath } from "@/lib/contract/operations";

export type ReservationsGetResponse = z.infer<typeof reservationsGetResponseSchema>;
export type GpuTrackingResponse = z.infer<typeof gpuTrackingResponseSchema>;
export type LatestGpuTracking = z.infer<typeof latestGpuTrackingSchema>;

/** Relative windows of the GPU tracking page; "custom" takes start and end from the URL. */
export const GPU_RANGE_PRESETS = { "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 } as const;
export const GPU_RANGES = ["24h", "7d", "30d", "custom"] as const;
export type GpuRange = (typeof GPU_RANGES)[number];

export interface GpuTrackingFilters {
  range: GpuRange;
  /** RFC 3339; used when range is "custom". */
  start?: string;
  end?: string;
  product_line?: string;
  region?: string;
}

/**
 * The window a filter stands for at `now`. Presets are resolved when the request
 * is made, not when the key is built, so the key stays the same across renders.
 */
export function gpuTrackingWindow(filters: GpuTrackingFilters, now = new Date()): { start_time?: string; end_time?: string } {
  if (filters.range === "custom") return { start_time: filters.start, end_time: filters.end };
  const end = now.getTime();
  return { start_time: new Date(end - GPU_RANGE_PRESETS[filters.range]).toISOString(), end_time: new Date(end).toISOString() };
}

function trackingFilterQuery(filters: { product_line?: string; region?: string }): QueryParams {
  return { product_line: filters.product_line || undefined, region: filters.region || undefined };
}

export const reservationQueries = {
  /** GET /v1/organizations/{id}/reservations, all statuses when none is given. */
  list: (orgId: string, status?: ReservationStatus) =>
    gatewayQuery<ReservationsGetResponse, ReturnType<typeof reservationKeys.list>>(
      reservationKeys.list(orgId, status ? { status } : {}),
      operationPath("getReservations", { organization_id: orgId }),
      { status },
    ),
  /** GET /v1/organizations/{id}/reservations/{reservation_id}: the reservation as the only item. */
  detail: (orgId: string, reservationId: string) =>
    gatewayQuery<ReservationsGetResponse, ReturnType<typeof reservationKeys.detail>>(
      reservationKeys.detail(orgId, reservationId),
      operationPath("getReservation", { organization_id: orgId, reservation_id: reservationId }),
    ),
  /** GET …/reservations/gpu-tracking over the filter's window. */
  gpuTracking: (orgId: string, filters: GpuTrackingFilters) => {
    const base = operationPath("getReservationsGPUTracking", { organization_id: orgId });
    const query = (now: Date): QueryParams => ({ ...trackingFilterQuery(filters), ...gpuTrackingWindow(filters, now) });
    const key = reservationKeys.gpuTracking(orgId, {
      range: filters.range,
      ...(filters.range === "custom" ? { start: filters.start, end: filters.end } : {}),
      product_line: filters.product_line || undefined,
      region: filters.region || undefined,
    });
    return {
      ...queryOptions({ queryKey: key, queryFn: () => apiFetch<GpuTrackingResponse>(base, { query: query(new Date()) }) }),
      path: `${base}${toQueryString(query(new Date()))}`,
    };
  },
  /** GET …/reservations/gpu-tracking/latest: the newest sample per product line and region. */
  gpuTrackingLatest: (orgId: string, filters: { product_line?: string; region?: string } = {}) => {
    const query = trackingFilterQuery(filters);
    return gatewayQuery<LatestGpuTracking, ReturnType<typeof reservationKeys.gpuTrackingLatest>>(
      reservationKeys.gpuTrackingLatest(orgId, query),
      operationPath("getLatestGPUTracking", { organization_id: orgId }),
      query,
    );
  },
};
