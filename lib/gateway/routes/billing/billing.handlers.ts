import { requirePermission } from "../../authz";
import { csvResponse } from "../../csv";
import { dailyCostsBody, keptUsageOptions } from "../../store/queries/usage-days";
import { usageCsv } from "../../store/queries/usage-export";
import { BILLING_EXPORT_COLUMNS } from "@/lib/contract/billing";
import { jsonPartsAnswer, type AppRouteHandler } from "../shared";
import { dateRange } from "../usage/range";
import type * as routes from "./billing.routes";

export const getBillingCosts: AppRouteHandler<typeof routes.getBillingCosts> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  const { start_date, end_date } = c.req.valid("query");
  await requirePermission(c.get("access"), orgId, "billing.read");
  // The JSON is written by the database (see dailyCostsBody), as bytes in parts: the same answer as c.json would give.
  const body = await dailyCostsBody(c.get("deps").db, orgId, dateRange(start_date, end_date));
  return jsonPartsAnswer(c, body) as never;
};

export const getBillingExportProductline: AppRouteHandler<typeof routes.getBillingExportProductline> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  const q = c.req.valid("query");
  await requirePermission(c.get("access"), orgId, "billing.read");
  const filter = { startDate: q.start_date, endDate: q.end_date, projects: q.projects, productLines: q.product_lines, regions: q.regions };
  return csvResponse(c, {
    fileName: `billing-productline-${q.start_date}-to-${q.end_date}.csv`,
    columns: BILLING_EXPORT_COLUMNS,
    chunks: usageCsv(c.get("deps").db, orgId, filter, BILLING_EXPORT_COLUMNS, { copyStallMs: c.get("deps").requestTimeoutMs }),
  });
};

export const getBillingOptions: AppRouteHandler<typeof routes.getBillingOptions> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  const { start_date, end_date } = c.req.valid("query");
  await requirePermission(c.get("access"), orgId, "billing.read");
  const { db, reads } = c.get("deps");
  const options = await keptUsageOptions(db, reads, orgId, { startDate: start_date, endDate: end_date, withoutReservations: true });
  return c.json(options, 200);
};
