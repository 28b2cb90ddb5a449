import { billingQueries, type DayRange } from "@/lib/query/billing";
import { summarizeCosts, type CostFilters } from "./aggregate";

/**
 * The billing page's summary of a period's costs for its filters: the server prefetches the page's
 * with `q.fromGateway(await cloudJson(session, q.path))`, the browser computes the next ones.
 */
export const costSummaryQuery = (orgId: string, range: DayRange, filters: CostFilters) =>
  billingQueries.costSummary(orgId, range, filters, (costs, f) => summarizeCosts(costs, f, range));
