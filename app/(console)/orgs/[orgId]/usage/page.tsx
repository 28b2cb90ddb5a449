import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import type { SearchParams } from "nuqs/server";
import { PageHeader } from "@/components/ui/page-header";
import { loadUsageSearchParams, usageFilters } from "@/components/usage/search-params";
import { UsageView } from "@/components/usage/usage-view";
import { requireConsoleSession } from "@/lib/auth/session";
import { cloudJson } from "@/lib/cloud/gateway-client";
import { projectQueries } from "@/lib/query/projects";
import { makeQueryClient } from "@/lib/query/query-client";
import { usageQueries } from "@/lib/query/usage";

export const metadata: Metadata = { title: "Usage" };

export default async function UsagePage({ params, searchParams }: { params: Promise<{ orgId: string }>; searchParams: Promise<SearchParams> }) {
  const { orgId } = await params;
  const search = await loadUsageSearchParams(searchParams);
  const session = await requireConsoleSession();
  const now = new Date();
  const filters = usageFilters(search, now);
  const queryClient = makeQueryClient();
  const queries = [projectQueries.list(), usageQueries.options(orgId), ...(filters ? [usageQueries.report(orgId, filters)] : [])];
  await Promise.all(queries.map((q) => queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) })));
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <PageHeader title="Usage" description="What the organization used, per day or month, by project, resource type and region." />
      <UsageView orgId={orgId} today={now.toISOString().slice(0, 10)} />
    </HydrationBoundary>
  );
}
