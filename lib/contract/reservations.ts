import { z } from "zod";
import { idSchema, queryArray } from "./common";
import { orderedRange, timestampSchema } from "./time";
import { RESERVATION_STATUSES } from "./constants";

export { RESERVATION_STATUSES, type ReservationStatus } from "./constants";

export const reservationsQuerySchema = z.object({
  status: z.enum(RESERVATION_STATUSES, { message: `must be one of ${RESERVATION_STATUSES.join(", ")}` }).optional(),
});

export const reservationPathSchema = z.object({ organization_id: idSchema, reservation_id: idSchema });

export const reservationSchema = z
  .object({
    id: z.string(),
    reservation_type: z.string().meta({ example: "RIPA" }),
    product_line: z.string().meta({ example: "h100" }),
    duration: z.number(),
    quantity: z.number().int(),
    used_quantity: z.number().int(),
    locations: z.array(z.string()),
    projects: z.array(z.string()),
    contract_start_date: z.string(),
    contract_end_date: z.string(),
    delivery_deadline: z.string(),
    date_delivered: z.string(),
    vm_ids: z.array(z.string()),
    price: z.string().meta({ example: "6.25" }),
  })
  .meta({ id: "Reservation" });

export const reservationsGetResponseSchema = z.object({ items: z.array(reservationSchema) }).meta({ id: "ReservationsGetResponse" });

const productLineAndRegion = {
  product_line: queryArray({ commaSeparated: true }),
  region: queryArray({ commaSeparated: true }),
};

export const gpuTrackingQuerySchema = z
  .object({ ...productLineAndRegion, start_time: timestampSchema.optional(), end_time: timestampSchema.optional() })
  .superRefine(orderedRange("start_time", "end_time"));

export const latestGpuTrackingQuerySchema = z.object(productLineAndRegion);

export const gpuTrackingDatumSchema = z
  .object({
    event_time: z.string(),
    global_capacity: z.number().int(),
    gpu_usage: z.number().int(),
    on_demand_count: z.number().int(),
    organization_id: z.string(),
    price: z.number(),
    product_line: z.string(),
    region: z.string(),
    regional_capacity: z.number().int(),
  })
  .meta({ id: "GPUTrackingDatum" });

export const gpuTrackingResponseSchema = z.object({ data: z.array(gpuTrackingDatumSchema) }).meta({ id: "GPUTrackingResponse" });

export const gpuTrackingDatumModSchema = z
  .object({
    event_time: z.string(),
    global_reservation_capacity: z.number().int(),
    organization_id: z.string(),
    overage_count: z.number().int(),
    price: z.number(),
    product_line: z.string(),
    region: z.string(),
    regional_reservation_capacity: z.number().int(),
    running_compute_unit_count: z.number().int(),
  })
  .meta({ id: "GPUTrackingDatumMod" });

export const latestGpuTrackingSchema = z
  .object({ data: z.array(gpuTrackingDatumModSchema), reservation_id: z.array(z.string()) })
  .meta({ id: "LatestGPUTracking" });

export type Reservation = z.infer<typeof reservationSchema>;
export type GpuTrackingDatum = z.infer<typeof gpuTrackingDatumSchema>;
export type GpuTrackingDatumMod = z.infer<typeof gpuTrackingDatumModSchema>;
