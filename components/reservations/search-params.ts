import { createLoader, parseAsString, parseAsStringLiteral } from "nuqs/server";
import { RESERVATION_STATUSES } from "@/lib/contract/constants";
import { GPU_RANGES } from "@/lib/query/reservations";

/**
 * URL state of the reservation pages, one definition for the client hooks
 * (useQueryStates) and the server loaders that prefetch the same keys.
 */
export const reservationListParams = {
  status: parseAsStringLiteral(RESERVATION_STATUSES),
};

export const gpuTrackingParams = {
  range: parseAsStringLiteral(GPU_RANGES).withDefault("7d"),
  start: parseAsString,
  end: parseAsString,
  product_line: parseAsString,
  region: parseAsString,
};

export const loadReservationListParams = createLoader(reservationListParams);
export const loadGpuTrackingParams = createLoader(gpuTrackingParams);
