import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { CatalogTabs } from "@/components/catalog/catalog-tabs";
import { RegistryView } from "@/components/catalog/registry-view";
import { PageHeader } from "@/components/ui/page-header";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { registryHost } from "@/lib/console/connection";
import { catalogQueries } from "@/lib/query/catalog";
import { makeQueryClient } from "@/lib/query/query-client";

export const metadata: Metadata = { title: "Registry tokens" };

export default async function RegistryPage() {
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  await Promise.all(
    [catalogQueries.registryLocations(), catalogQueries.registryProviders()].map((q) =>
      queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) }),
    ),
  );
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <PageHeader title="Registry tokens" description="Tokens for the container registry, and where it can host repositories." />
      <CatalogTabs />
      <RegistryView registryHost={registryHost()} username={session.email} />
    </HydrationBoundary>
  );
}
