import { sql } from "drizzle-orm";
import { bigserial, doublePrecision, index, integer, numeric, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { organizations } from "./identity";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * Reserved capacity. The status (pending, effective, expired, cancelled) follows
 * from the contract dates and cancelled_at, so it never goes stale.
 */
export const reservations = pgTable(
  "reservations",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    reservationType: text("reservation_type").notNull(),
    productLine: text("product_line").notNull(),
    /** Contract length in months. */
    duration: doublePrecision("duration").notNull(),
    /** GPUs reserved. */
    quantity: integer("quantity").notNull(),
    locations: text("locations").array().notNull().default(sql`'{}'::text[]`),
    projectIds: text("project_ids").array().notNull().default(sql`'{}'::text[]`),
    vmIds: text("vm_ids").array().notNull().default(sql`'{}'::text[]`),
    contractStartDate: ts("contract_start_date").notNull(),
    contractEndDate: ts("contract_end_date").notNull(),
    deliveryDeadline: ts("delivery_deadline").notNull(),
    dateDelivered: ts("date_delivered"),
    /** Price per GPU-hour, decimal. */
    price: numeric("price", { precision: 12, scale: 4 }).notNull(),
    cancelledAt: ts("cancelled_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("reservations_org_idx").on(t.organizationId, t.contractStartDate)],
);

/** GPU usage against reserved capacity, sampled per product line and region. */
export const gpuTracking = pgTable(
  "gpu_tracking",
  {
    seq: bigserial("seq", { mode: "number" }).primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    eventTime: ts("event_time").notNull(),
    productLine: text("product_line").notNull(),
    region: text("region").notNull(),
    /** Reserved GPUs of the product line in the region. */
    regionalCapacity: integer("regional_capacity").notNull(),
    /** Reserved GPUs of the product line across all regions. */
    globalCapacity: integer("global_capacity").notNull(),
    /** GPUs running. */
    gpuUsage: integer("gpu_usage").notNull(),
    /** GPUs running beyond the reservation, billed on demand. */
    onDemandCount: integer("on_demand_count").notNull(),
    /** On-demand price per GPU-hour, decimal. */
    price: numeric("price", { precision: 12, scale: 4 }).notNull(),
  },
  (t) => [index("gpu_tracking_org_time_idx").on(t.organizationId, t.eventTime)],
);
