import { dehydrate, HydrationBoundary, type QueryKey } from "@tanstack/react-query";
import type { Metadata } from "next";
import { MfaSettings } from "@/components/security/mfa-settings";
import { gatewayIsEmbedded } from "@/lib/console/config";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { orgQueries } from "@/lib/query/organizations";
import { makeQueryClient } from "@/lib/query/query-client";
import { mfaQueries } from "@/lib/query/security";

export const metadata: Metadata = { title: "Multi-factor authentication" };

export default async function MfaPage({ params }: { params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  const queries: Array<{ queryKey: QueryKey; path: string }> = [orgQueries.entities(), mfaQueries.get(orgId)];
  await Promise.all(queries.map((q) => queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) })));
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <MfaSettings orgId={orgId} remote={!gatewayIsEmbedded()} />
    </HydrationBoundary>
  );
}
