import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { QuotasView } from "@/components/quotas/quotas-view";
import { PageHeader } from "@/components/ui/page-header";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { makeQueryClient } from "@/lib/query/query-client";
import { quotaQueries } from "@/lib/query/quotas";

export const metadata: Metadata = { title: "Quotas" };

export default async function QuotasPage({ params }: { params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  const q = quotaQueries.org(orgId);
  await queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) });
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <PageHeader title="Quotas" description="The maximum of each resource the organization may hold, and how much of it is in use." />
      <QuotasView orgId={orgId} />
    </HydrationBoundary>
  );
}
