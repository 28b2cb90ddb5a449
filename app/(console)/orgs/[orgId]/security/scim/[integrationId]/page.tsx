import { dehydrate, HydrationBoundary, type QueryKey } from "@tanstack/react-query";
import type { Metadata } from "next";
import { ScimIntegrationDetail } from "@/components/security/scim-integration-detail";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { orgQueries } from "@/lib/query/organizations";
import { makeQueryClient } from "@/lib/query/query-client";
import { scimQueries } from "@/lib/query/security";

export const metadata: Metadata = { title: "SCIM integration" };

export default async function ScimIntegrationPage({ params }: { params: Promise<{ orgId: string; integrationId: string }> }) {
  const { orgId, integrationId } = await params;
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  const queries: Array<{ queryKey: QueryKey; path: string }> = [orgQueries.entities(), scimQueries.detail(orgId, integrationId), scimQueries.tokens(orgId, integrationId)];
  await Promise.all(queries.map((q) => queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) })));
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <ScimIntegrationDetail orgId={orgId} integrationId={integrationId} />
    </HydrationBoundary>
  );
}
