import { sql } from "drizzle-orm";
import { bigint, bigserial, date, index, numeric, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

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

/**
 * usage_records summed per organization, day, project, resource type, region, metric and
 * reservation ('' for usage on demand), the primary key in the order the charts list them, kept by triggers on usage_records (migration 0011):
 * an INSERT adds its rows' sums, an UPDATE or DELETE sums the days it touched again, a
 * TRUNCATE empties it. The charts read these sums (a few hundred a day) instead of the rows.
 * Product line and project name are in the key too (migration 0018), so the filters' values
 * (usage options) come from the sums: in practice each is one per resource type and project.
 */
export const usageDaily = pgTable(
  "usage_daily",
  {
    organizationId: text("organization_id").notNull(),
    usageDate: date("usage_date", { mode: "string" }).notNull(),
    projectId: text("project_id").notNull(),
    resourceType: text("resource_type").notNull(),
    region: text("region").notNull(),
    billableMetric: text("billable_metric").notNull(),
    reservationId: text("reservation_id").notNull().default(""),
    productLine: text("product_line").notNull().default(""),
    /** The project's name as the rows recorded it (usage_records.project_name). */
    projectName: text("project_name").notNull().default(""),
    quantity: numeric("quantity").notNull(),
    cost: numeric("cost").notNull(),
    minUnitPrice: numeric("min_unit_price", { precision: 12, scale: 6 }).notNull(),
    maxUnitPrice: numeric("max_unit_price", { precision: 12, scale: 6 }).notNull(),
    records: bigint("records", { mode: "number" }).notNull(),
    recordedAt: timestamp("recorded_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    primaryKey({
      name: "usage_daily_pk",
      columns: [t.organizationId, t.usageDate, t.projectId, t.resourceType, t.region, t.billableMetric, t.reservationId, t.productLine, t.projectName],
    }),
  ],
);

/**
 * Each day's chart points as JSON text (comma-separated objects in the charts' order), rendered
 * from usage_daily by the same triggers (migration 0011): `billing` the billing chart's points,
 * `usage` the usage chart's. A chart over 90 days joins 90 of these instead of summing, sorting
 * and serializing tens of thousands of points on every request.
 */
export const usageDayJson = pgTable(
  "usage_day_json",
  {
    organizationId: text("organization_id").notNull(),
    usageDate: date("usage_date", { mode: "string" }).notNull(),
    billing: text("billing").notNull(),
    usage: text("usage").notNull(),
    /**
     * The day's filter values (migration 0018), a JSON object: `all` and `on_demand` (usage
     * outside reservations), each with `projects` (id to the name the rows recorded), and
     * `resource_types`, `product_lines` and `regions`. Usage options over a range merge these.
     */
    options: text("options").notNull().default(""),
    recordedAt: timestamp("recorded_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [primaryKey({ name: "usage_day_json_pk", columns: [t.organizationId, t.usageDate] })],
);
