import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/page-header";
import { UsageView } from "@/components/usage/usage-view";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { projectQueries } from "@/lib/query/projects";
import { makeQueryClient } from "@/lib/query/query-client";
import { usageQueries } from "@/lib/query/usage";

export const metadata: Metadata = { title: "Usage" };

export default async function UsagePage({ params }: { params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  const session = await requireConsoleSession();
  const now = new Date();
  const queryClient = makeQueryClient();
  // The report's rows (a month of daily usage is over a megabyte) are fetched by the browser as JSON,
  // not sent inside the page, whose HTML they made a megabyte and whose parsing they made slow.
  const queries = [projectQueries.list(), usageQueries.options(orgId)];
  await Promise.all(queries.map((q) => queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) })));
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <PageHeader title="Usage" description="What the organization used, per day or month, by project, resource type and region." />
      <UsageView orgId={orgId} today={now.toISOString().slice(0, 10)} />
    </HydrationBoundary>
  );
}
