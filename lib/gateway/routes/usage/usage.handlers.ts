import { requirePermission } from "../../authz";
import { csvResponse } from "../../csv";
import { keptUsageOptions, usageByPeriodBody } from "../../store/queries/usage-days";
import { usageCsv } from "../../store/queries/usage-export";
import { MAX_MONTHLY_RANGE_DAYS, MAX_RANGE_DAYS } from "@/lib/contract/constants";
import { USAGE_EXPORT_COLUMNS } from "@/lib/contract/usage";
import { jsonPartsAnswer, type AppRouteHandler } from "../shared";
import { dateRange } from "./range";
import type * as routes from "./usage.routes";

export const getUsage: AppRouteHandler<typeof routes.getUsage> = async (c) => {
  const { org_id: orgId } = c.req.valid("param");
  const q = c.req.valid("query");
  await requirePermission(c.get("access"), orgId, "billing.read");
  // A monthly chart holds a point a month: five years of them are far fewer than a daily chart's year of days.
  const maxDays = q.interval === "monthly" ? MAX_MONTHLY_RANGE_DAYS : MAX_RANGE_DAYS;
  const filter = { ...dateRange(q.start_date, q.end_date, new Date(), maxDays), projects: q.projects, resourceTypes: q.resource_types, regions: q.regions };
  // The JSON is written by the database (see usageByPeriodBody), as text or bytes in parts: the same answer as c.json would give.
  const body = await usageByPeriodBody(c.get("deps").db, orgId, filter, q.interval ?? "daily");
  return jsonPartsAnswer(c, body) as never;
};

export const getUsageExport: AppRouteHandler<typeof routes.getUsageExport> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  const q = c.req.valid("query");
  await requirePermission(c.get("access"), orgId, "billing.read");
  const filter = {
    startDate: q.start_date,
    endDate: q.end_date,
    projects: q.projects,
    resources: q.resources,
    resourceTypes: q.resource_types,
    regions: q.regions,
  };
  return csvResponse(c, {
    fileName: `usage-${q.start_date}-to-${q.end_date}.csv`,
    columns: USAGE_EXPORT_COLUMNS,
    chunks: usageCsv(c.get("deps").db, orgId, filter, USAGE_EXPORT_COLUMNS, { copyStallMs: c.get("deps").requestTimeoutMs }),
  });
};

export const getUsageOptions: AppRouteHandler<typeof routes.getUsageOptions> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  const q = c.req.valid("query");
  await requirePermission(c.get("access"), orgId, "billing.read");
  const filter = { startDate: q.start_date, endDate: q.end_date, projects: q.projects, resourceTypes: q.resource_types, regions: q.regions };
  const { db, reads } = c.get("deps");
  return c.json(await keptUsageOptions(db, reads, orgId, filter, { withResources: q.with_resources === true }), 200);
};
