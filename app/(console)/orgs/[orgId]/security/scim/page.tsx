import { dehydrate, HydrationBoundary, type QueryKey } from "@tanstack/react-query";
import type { Metadata } from "next";
import { ScimIntegrationsView } from "@/components/security/scim-integrations";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { orgQueries } from "@/lib/query/organizations";
import { makeQueryClient } from "@/lib/query/query-client";
import { scimQueries } from "@/lib/query/security";

export const metadata: Metadata = { title: "SCIM provisioning" };

export default async function ScimPage({ params }: { params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  const queries: Array<{ queryKey: QueryKey; path: string }> = [orgQueries.entities(), scimQueries.list(orgId)];
  await Promise.all(queries.map((q) => queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) })));
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <ScimIntegrationsView orgId={orgId} />
    </HydrationBoundary>
  );
}
