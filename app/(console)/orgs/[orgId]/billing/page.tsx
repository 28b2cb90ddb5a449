import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { Suspense } from "react";
import type { SearchParams } from "nuqs/server";
import { BillingView } from "@/components/billing/billing-view";
import { resolveRange } from "@/components/spend/date-range";
import { loadBillingSearchParams } from "@/components/billing/search-params";
import { PageHeader } from "@/components/ui/page-header";
import { ContentSkeleton } from "@/components/ui/skeleton";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { billingQueries } from "@/lib/query/billing";
import { costSummaryQuery } from "@/components/billing/queries";
import { projectQueries } from "@/lib/query/projects";
import { makeQueryClient } from "@/lib/query/query-client";

export const metadata: Metadata = { title: "Billing" };

/**
 * The heading paints with the first bytes; the part that needs the gateway's data streams in after it
 * (its skeleton meanwhile), so the page's largest text does not wait for those calls.
 */
export default function BillingPage({ params, searchParams }: { params: Promise<{ orgId: string }>; searchParams: Promise<SearchParams> }) {
  return (
    <>
      <PageHeader title="Billing" description="Daily spend by project over any range, totals per project and product line, and CSV exports." />
      <Suspense fallback={<ContentSkeleton />}>
        <BillingContent params={params} searchParams={searchParams} />
      </Suspense>
    </>
  );
}

async function BillingContent({ params, searchParams }: { params: Promise<{ orgId: string }>; searchParams: Promise<SearchParams> }) {
  const { orgId } = await params;
  const search = await loadBillingSearchParams(searchParams);
  const session = await requireConsoleSession();
  const today = new Date().toISOString().slice(0, 10);
  // The browser resolves the range at noon UTC of the same day, so it reads the very keys prefetched here.
  const now = new Date(`${today}T12:00:00Z`);
  const queryClient = makeQueryClient();
  const resolved = resolveRange(search.range, search.from, search.to, now);
  const mtd = resolveRange("mtd", null, null, now);
  const filters = { projects: search.projects, resource_types: search.resource_types, regions: search.regions };
  // The cost rows (a month is about a megabyte) stay on the server: the page is sent with what it shows
  // of them for the filters in its URL (costSummaryQuery, a few kilobytes), for the range and the month
  // to date (one query when they are the same).
  const queries = [
    projectQueries.list(),
    ...(resolved.ok ? [billingQueries.options(orgId, resolved.range), costSummaryQuery(orgId, resolved.range, filters)] : []),
    ...(mtd.ok ? [costSummaryQuery(orgId, mtd.range, filters)] : []),
  ];
  // In parallel; one that fails shows its own error state in the browser.
  await Promise.all(
    queries.map((q) => queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: async () => q.fromGateway(await cloudJson(session, q.path)) as unknown })),
  );
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <BillingView orgId={orgId} today={today} />
    </HydrationBoundary>
  );
}
