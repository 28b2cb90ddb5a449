import type { z } from "zod";
import type { billingCostDataSchema } from "@/lib/contract/billing";
import type { usageOptionsSchema } from "@/lib/contract/usage";
import { apiUrl } from "./fetcher";
import { derivedGatewayQuery, gatewayQuery } from "./gateway-query";
import { billingKeys } from "./keys";
import { operationPath } from "@/lib/contract/operations";

export type BillingCostData = z.infer<typeof billingCostDataSchema>;
export type BillingOptions = z.infer<typeof usageOptionsSchema>;

/** A period of whole days, YYYY-MM-DD, both ends inclusive. */
export interface DayRange {
  start_date: string;
  end_date: string;
}

export const billingQueries = {
  /** GET …/billing/costs: daily spend by project, product and region. */
  costs: (orgId: string, range: DayRange) =>
    gatewayQuery<BillingCostData, ReturnType<typeof billingKeys.costs>>(billingKeys.costs(orgId, { ...range }), operationPath("getBillingCosts", { organization_id: orgId }), { ...range }),
  /**
   * What `summarize` makes of the period's cost rows for filters the operation does not take (the
   * billing page's summary): the server sends only it; the browser fetches the rows once a filter changes.
   */
  costSummary: <F, T>(orgId: string, range: DayRange, filters: F, summarize: (costs: BillingCostData, filters: F) => T) =>
    derivedGatewayQuery(billingQueries.costs(orgId, range), filters, summarize),
  /** GET …/billing/options: the projects, product lines and regions with on-demand costs in the period. */
  options: (orgId: string, range: DayRange) =>
    gatewayQuery<BillingOptions, ReturnType<typeof billingKeys.options>>(billingKeys.options(orgId, { ...range }), operationPath("getBillingOptions", { organization_id: orgId }), { ...range }),
};

export interface BillingExportFilters extends DayRange {
  projects: string[];
  product_lines: string[];
  regions: string[];
}

/**
 * The backend-for-frontend URL of the product-line CSV: the browser downloads it
 * with a plain link, streamed, under the file name the gateway gives. Empty lists
 * mean "all" and are left out.
 */
export function billingExportUrl(orgId: string, f: BillingExportFilters): string {
  const list = (values: string[]) => (values.length ? values : undefined);
  return apiUrl(operationPath("getBillingExportProductline", { organization_id: orgId }), {
    projects: list(f.projects),
    product_lines: list(f.product_lines),
    regions: list(f.regions),
    start_date: f.start_date,
    end_date: f.end_date,
  });
}
