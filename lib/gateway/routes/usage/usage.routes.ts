import { MAX_MONTHLY_RANGE_DAYS, MAX_RANGE_DAYS } from "@/lib/contract/constants";
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import {
  customerOrganizationUsageSchema,
  organizationPathSchema,
  USAGE_EXPORT_COLUMNS,
  usageExportQuerySchema,
  usageOptionsQuerySchema,
  usageOptionsSchema,
  usagePathSchema,
  usageQuerySchema,
} from "@/lib/contract/usage";
import { defaultError, errors, json, operation } from "../shared";

const tags = ["Usage"];

export const getUsage = createRoute({
  ...operation("getUsage"),
  tags,
  summary: "Get project-level usage for products in the cloud platform.",
  description:
    `Array parameters repeat their name once per value. Without dates, the last 30 days; at most ${MAX_RANGE_DAYS} days daily, ` +
    `${MAX_MONTHLY_RANGE_DAYS} monthly. Interval daily (default) or monthly, which sums each month under its first day.`,
  request: { params: usagePathSchema, query: usageQuerySchema },
  responses: { 200: json(customerOrganizationUsageSchema, "usage by project"), ...errors(400, 500), ...defaultError },
});

// The reference declares no 403 for the export and options, nor a 400 for the options: a caller outside the organization is
// still refused, and a value of the options' query (the selection, with_resources) that fails validation is a 400 naming it.
export const getUsageExport = createRoute({
  ...operation("getUsageExport"),
  tags,
  summary: "Get resource-level usage for products in the cloud platform.",
  description: `CSV columns: ${USAGE_EXPORT_COLUMNS.join(", ")}. One row per resource and day.`,
  request: { params: organizationPathSchema, query: usageExportQuerySchema },
  responses: {
    200: {
      description: "resource-level usage",
      content: {
        "text/csv": {
          schema: z.string().meta({
            example:
              `${USAGE_EXPORT_COLUMNS.join(",")}\n` +
              "gpu-hours,ab4a6b00-aa5f-408e-a9fb-ac6de5eb45ab,261.271111,us-east1,d8f58dfd-dd86-4ee4-8f01-643e6d0f15bb,h100-80gb-sxm-ib.8x,2025-02-14\n",
          }),
        },
      },
    },
    ...errors(400, 403, 500),
  },
});

export const getUsageOptions = createRoute({
  ...operation("getUsageOptions"),
  tags,
  summary: "Get options which exist for filters for /usage and /usage/export routes.",
  description:
    "Without a query, every value of the organization's usage. With projects, resource_types, regions, start_date or end_date " +
    "(as the usage operation takes them), the values of that selection; with_resources=true adds the IDs of its resources, " +
    "which the usage export requires; as the export, it takes a range (start_date and end_date required).",
  request: { params: organizationPathSchema, query: usageOptionsQuerySchema },
  responses: { 200: json(usageOptionsSchema, "filter values"), ...errors(400, 401, 403, 500) },
});
