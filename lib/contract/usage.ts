import { z } from "zod";
import { USAGE_INTERVALS } from "./constants";
import { COMMA_SEPARATED, idSchema, queryArray, queryBoolean } from "./common";
import { dateSchema, orderedRange } from "./time";

export const usageIntervalSchema = z.enum(USAGE_INTERVALS, { message: "must be daily or monthly" });

/** GET /organizations/{org_id}/usage: arrays repeat the name once per value. */
export const usageQuerySchema = z
  .object({
    projects: queryArray(),
    resource_types: queryArray(),
    regions: queryArray(),
    start_date: dateSchema.optional(),
    end_date: dateSchema.optional(),
    interval: usageIntervalSchema.optional(),
  })
  .superRefine(orderedRange("start_date", "end_date"));

export const usagePathSchema = z.object({ org_id: idSchema });
export const organizationPathSchema = z.object({ organization_id: idSchema });

/** An array parameter the reference declares required: present, with at least one value. */
const requiredArray = () =>
  z
    .union([z.string(), z.array(z.string())], { error: (issue) => (issue.input === undefined ? "is required" : "must be a list of strings") })
    .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((x) => x.split(",")).map((x) => x.trim()).filter((x) => x !== ""))
    .pipe(z.array(z.string().max(512)).min(1, "must name at least one value").max(100))
    .meta({ type: "array", items: { type: "string" }, param: COMMA_SEPARATED } as never);

export const usageExportQuerySchema = z
  .object({
    projects: requiredArray(),
    resources: requiredArray(),
    resource_types: requiredArray(),
    regions: requiredArray(),
    start_date: dateSchema,
    end_date: dateSchema,
  })
  .superRefine(orderedRange("start_date", "end_date"));

export const customerProductProjectUsageSchema = z
  .object({
    billable_metric: z.string(),
    date: z.string().meta({ example: "2022-07-01" }),
    project_id: z.string(),
    quantity: z.number(),
    region: z.string(),
    reservation_id: z.string(),
    resource_type: z.string(),
  })
  .meta({ id: "customerProductProjectUsage" });

export const customerOrganizationUsageSchema = z
  .object({ items: z.array(customerProductProjectUsageSchema) })
  .meta({ id: "customerOrganizationUsage" });

/**
 * GET …/usage/options. Beyond the reference (which takes no query): an optional selection, as
 * the usage operation takes it, narrowing every list to the values of that selection; and
 * `with_resources=true`, which adds the IDs of the resources with usage in it (what the usage
 * export requires, so a client can export a selection without knowing its resources). As the
 * export, that takes a range: start_date and end_date are then required.
 */
export const usageOptionsQuerySchema = z
  .object({
    projects: queryArray(),
    resource_types: queryArray(),
    regions: queryArray(),
    start_date: dateSchema.optional(),
    end_date: dateSchema.optional(),
    with_resources: queryBoolean,
  })
  .superRefine(orderedRange("start_date", "end_date"))
  .superRefine((value, ctx) => {
    // The resources of a selection are for its export, which takes a range: without one, the listing would read every
    // usage row the organization has.
    if (value.with_resources !== true) return;
    for (const key of ["start_date", "end_date"] as const) {
      if (value[key] === undefined) ctx.addIssue({ code: "custom", path: [key], message: "is required with with_resources=true" });
    }
  });

/** The values that exist for the usage and billing filters, and the span of the data. */
export const usageOptionsSchema = z
  .object({
    projects: z.array(z.string()),
    /** Project id → name, as the CSV exports write it. */
    project_names: z.record(z.string(), z.string()),
    resource_types: z.array(z.string()),
    product_lines: z.array(z.string()),
    regions: z.array(z.string()),
    start_date: z.string(),
    end_date: z.string(),
    /** Only with `with_resources=true`: the resources with usage in the selection, in order. */
    resources: z.array(z.string()).optional(),
  })
  .meta({ id: "UsageOptions" });

/** Columns of the usage export, in the reference's order. */
export const USAGE_EXPORT_COLUMNS = ["metric", "project_id", "quantity", "region", "resource_id", "resource_type", "usage_date"] as const;

export type UsageQuery = z.infer<typeof usageQuerySchema>;
export type CustomerProductProjectUsage = z.infer<typeof customerProductProjectUsageSchema>;
export type UsageOptions = z.infer<typeof usageOptionsSchema>;
export type UsageOptionsQuery = z.infer<typeof usageOptionsQuerySchema>;
