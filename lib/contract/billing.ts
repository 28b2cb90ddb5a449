import { z } from "zod";
import { queryArray } from "./common";
import { dateSchema, orderedRange } from "./time";

export const billingRangeQuerySchema = z
  .object({ start_date: dateSchema.optional(), end_date: dateSchema.optional() })
  .superRefine(orderedRange("start_date", "end_date"));

export const billingExportQuerySchema = z
  .object({
    projects: queryArray({ commaSeparated: true }),
    product_lines: queryArray({ commaSeparated: true }),
    regions: queryArray({ commaSeparated: true }),
    start_date: dateSchema,
    end_date: dateSchema,
  })
  .superRefine(orderedRange("start_date", "end_date"));

export const billingCostDatumSchema = z
  .object({
    billable_metric: z.string(),
    cost: z.number(),
    date: z.string(),
    project_id: z.string(),
    quantity: z.number(),
    region: z.string(),
    resource_type: z.string(),
    unit_price: z.number(),
  })
  .meta({ id: "BillingCostDatum" });

export const billingCostDataSchema = z
  .object({ data: z.array(billingCostDatumSchema), last_updated: z.string() })
  .meta({ id: "BillingCostData" });

/** Columns of the billing export, in the reference's order. */
export const BILLING_EXPORT_COLUMNS = [
  "cost",
  "metric",
  "product_line",
  "project_id",
  "project_name",
  "quantity",
  "region",
  "resource_name",
  "unit_price",
  "usage_date",
] as const;

export type BillingCostDatum = z.infer<typeof billingCostDatumSchema>;
