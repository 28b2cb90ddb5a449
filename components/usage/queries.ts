import { usageQueries, type UsageFilters } from "@/lib/query/usage";
import { summarizeUsage } from "./aggregate";

/**
 * The usage page's summary of the usage report for its filters: the browser fetches and summarizes,
 * and the server prefetches the page's first with `cloudJson(session, q.path).then(q.fromGateway)`.
 */
export const usageSummaryQuery = (orgId: string, filters: UsageFilters) => usageQueries.summary(orgId, filters, (report) => summarizeUsage(report, filters.interval));
