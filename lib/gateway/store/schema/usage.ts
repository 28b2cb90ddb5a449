import { sql } from "drizzle-orm";
import { bigserial, date, index, numeric, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Metered usage: one row per resource and day. Money stays decimal: the cost of a
 * row is rounded once, in the database, from quantity × unit price.
 */
export const usageRecords = pgTable(
  "usage_records",
  {
    /** Tie-breaker of the keyset order (usage_date, seq) the CSV exports stream in. */
    seq: bigserial("seq", { mode: "number" }).primaryKey(),
    organizationId: text("organization_id").notNull(),
    /** No foreign key: billing history outlives a deleted project. */
    projectId: text("project_id").notNull(),
    /** The project's name when the usage was recorded, for projects since deleted. */
    projectName: text("project_name").notNull().default(""),
    usageDate: date("usage_date", { mode: "string" }).notNull(),
    region: text("region").notNull(),
    resourceType: text("resource_type").notNull(),
    productLine: text("product_line").notNull(),
    resourceId: text("resource_id").notNull(),
    resourceName: text("resource_name").notNull(),
    billableMetric: text("billable_metric").notNull(),
    quantity: numeric("quantity", { precision: 18, scale: 6 }).notNull(),
    unitPrice: numeric("unit_price", { precision: 12, scale: 6 }).notNull(),
    cost: numeric("cost", { precision: 16, scale: 2 }).generatedAlwaysAs(sql`round(quantity * unit_price, 2)`),
    reservationId: text("reservation_id"),
    recordedAt: timestamp("recorded_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("usage_org_date_idx").on(t.organizationId, t.usageDate, t.seq)],
);
