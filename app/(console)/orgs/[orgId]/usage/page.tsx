import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import type { SearchParams } from "nuqs/server";
import { PageHeader } from "@/components/ui/page-header";
import { usageSummaryQuery } from "@/components/usage/queries";
import { loadUsageSearchParams, usageFilters } from "@/components/usage/search-params";
import { UsageView } from "@/components/usage/usage-view";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { projectQueries } from "@/lib/query/projects";
import { makeQueryClient } from "@/lib/query/query-client";
import { usageQueries } from "@/lib/query/usage";

export const metadata: Metadata = { title: "Usage" };

export default async function UsagePage({ params, searchParams }: { params: Promise<{ orgId: string }>; searchParams: Promise<SearchParams> }) {
  const { orgId } = await params;
  const search = await loadUsageSearchParams(searchParams);
  const session = await requireConsoleSession();
  const today = new Date().toISOString().slice(0, 10);
  const queryClient = makeQueryClient();
  // The report's rows (a month of daily usage is over a megabyte) stay on the server: the page is sent
  // with what it shows of them (usageSummaryQuery, a few kilobytes), for the filters in its URL, as the
  // browser computes them (usageFilters, at noon UTC of the same day).
  const filters = usageFilters(search, new Date(`${today}T12:00:00Z`));
  const queries = [projectQueries.list(), usageQueries.options(orgId), ...(filters ? [usageSummaryQuery(orgId, filters)] : [])];
  // In parallel; one that fails shows its own error state in the browser.
  await Promise.all(
    queries.map((q) => queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: async () => q.fromGateway(await cloudJson(session, q.path)) as unknown })),
  );
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <PageHeader title="Usage" description="What the organization used, per day or month, by project, resource type and region." />
      <UsageView orgId={orgId} today={today} />
    </HydrationBoundary>
  );
}
