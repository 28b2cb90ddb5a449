import { MAX_RANGE_DAYS } from "@/lib/contract/constants";
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { billingCostDataSchema, billingExportQuerySchema, billingRangeQuerySchema, BILLING_EXPORT_COLUMNS } from "@/lib/contract/billing";
import { organizationPathSchema, usageOptionsSchema } from "@/lib/contract/usage";
import { errors, json, operation } from "../shared";

const tags = ["Billing"];

export const getBillingCosts = createRoute({
  ...operation("getBillingCosts"),
  tags,
  summary: "Get the daily spend for a specified organization by project.",
  description: `Optional start_date and end_date (YYYY-MM-DD) choose the period, of at most ${MAX_RANGE_DAYS} days; the default is the last 30 days.`,
  request: { params: organizationPathSchema, query: billingRangeQuerySchema },
  responses: { 200: json(billingCostDataSchema, "daily spend by project"), ...errors(400, 401, 403, 500) },
});

export const getBillingExportProductline = createRoute({
  ...operation("getBillingExportProductline"),
  tags,
  summary: "Return a CSV containing the costs for resources in a given period.",
  description: `Columns: ${BILLING_EXPORT_COLUMNS.join(", ")}. One row per resource and day.`,
  request: { params: organizationPathSchema, query: billingExportQuerySchema },
  responses: {
    200: {
      description: "costs of resources in the period",
      content: {
        "text/csv": {
          schema: z.string().meta({
            example:
              `${BILLING_EXPORT_COLUMNS.join(",")}\n` +
              "45.67,gpu-hours,h100,ab4a6b00-aa5f-408e-a9fb-ac6de5eb45ab,llm-training,18.341365,us-east1,llm-training-h100-us-east1,2.490000,2025-02-14\n",
          }),
        },
      },
    },
    ...errors(400, 403, 500),
  },
});

export const getBillingOptions = createRoute({
  ...operation("getBillingOptions"),
  tags,
  summary: "Retrieve data about an organizations recent Non-Reservation costs.",
  request: { params: organizationPathSchema, query: billingRangeQuerySchema },
  responses: { 200: json(usageOptionsSchema, "filter values of the on-demand costs"), ...errors(400, 401, 403, 500) },
});
