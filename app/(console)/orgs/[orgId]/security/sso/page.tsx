import { dehydrate, HydrationBoundary, type QueryKey } from "@tanstack/react-query";
import type { Metadata } from "next";
import { SsoProvidersView } from "@/components/security/sso-providers";
import { consoleOrigin } from "@/lib/console/origin";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { orgQueries } from "@/lib/query/organizations";
import { makeQueryClient } from "@/lib/query/query-client";
import { ssoQueries } from "@/lib/query/security";

export const metadata: Metadata = { title: "Single sign-on" };

export default async function SsoPage({ params }: { params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  const queries: Array<{ queryKey: QueryKey; path: string }> = [orgQueries.entities(), ssoQueries.list(orgId)];
  await Promise.all(queries.map((q) => queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) })));
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <SsoProvidersView orgId={orgId} consoleOrigin={await consoleOrigin()} />
    </HydrationBoundary>
  );
}
