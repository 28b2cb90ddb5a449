import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import type { SearchParams } from "nuqs/server";
import { AuditLogView } from "@/components/audit-logs/audit-log-view";
import { loadAuditSearchParams } from "@/components/audit-logs/search-params";
import { PageHeader } from "@/components/ui/page-header";
import { requireConsoleSession } from "@/lib/auth/session";
import { cloudJson } from "@/lib/cloud/gateway-client";
import { auditLogQuery } from "@/lib/query/audit-logs";
import { catalogQueries } from "@/lib/query/catalog";
import { makeQueryClient } from "@/lib/query/query-client";
import { projectQueries } from "@/lib/query/projects";

export const metadata: Metadata = { title: "Audit logs" };

export default async function AuditLogsPage({ params, searchParams }: { params: Promise<{ orgId: string }>; searchParams: Promise<SearchParams> }) {
  const { orgId } = await params;
  const search = await loadAuditSearchParams(searchParams);
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  const queries = [auditLogQuery(orgId, search), projectQueries.list(), catalogQueries.locations()];
  await Promise.all(queries.map((q) => queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) })));
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <PageHeader title="Audit logs" description="Who did what, when and from where in this organization: every change, failed ones included." />
      <AuditLogView orgId={orgId} />
    </HydrationBoundary>
  );
}
