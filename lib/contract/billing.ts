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

/**
 * Columns of the billing export: the reference's, in the reference's order (it lists them as the
 * response's headers, in order; clients may read by position), then `resource_type`: the product
 * as the console's billing page names it ("h100-80gb-sxm-ib.8x", of the product line "h100").
 */
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
  "resource_type",
] as const;

export type BillingCostDatum = z.infer<typeof billingCostDatumSchema>;
