import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { Suspense } from "react";
import type { SearchParams } from "nuqs/server";
import { AuditLogView } from "@/components/audit-logs/audit-log-view";
import { loadAuditSearchParams } from "@/components/audit-logs/search-params";
import { PageHeader } from "@/components/ui/page-header";
import { ContentSkeleton } from "@/components/ui/skeleton";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { auditLogQuery } from "@/lib/query/audit-logs";
import { catalogQueries } from "@/lib/query/catalog";
import { makeQueryClient } from "@/lib/query/query-client";
import { projectQueries } from "@/lib/query/projects";
import { peopleQueries } from "@/lib/query/people";

export const metadata: Metadata = { title: "Audit logs" };

/**
 * The heading paints with the first bytes; the part that needs the gateway's data streams in after it
 * (its skeleton meanwhile), so the page's largest text does not wait for those calls.
 */
export default function AuditLogsPage({ params, searchParams }: { params: Promise<{ orgId: string }>; searchParams: Promise<SearchParams> }) {
  return (
    <>
      <PageHeader title="Audit logs" description="Who did what, when and from where in this organization: every change, failed ones included." />
      <Suspense fallback={<ContentSkeleton />}>
        <AuditLogsContent params={params} searchParams={searchParams} />
      </Suspense>
    </>
  );
}

async function AuditLogsContent({ params, searchParams }: { params: Promise<{ orgId: string }>; searchParams: Promise<SearchParams> }) {
  const { orgId } = await params;
  const search = await loadAuditSearchParams(searchParams);
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  // The directory names the actors on first paint.
  const queries = [auditLogQuery(orgId, search), projectQueries.list(), catalogQueries.locations(), peopleQueries.directory(orgId)];
  await Promise.all(queries.map((q) => queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) })));
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <AuditLogView orgId={orgId} />
    </HydrationBoundary>
  );
}
