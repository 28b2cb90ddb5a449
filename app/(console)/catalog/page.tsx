import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import type { SearchParams } from "nuqs/server";
import { CapacityView } from "@/components/catalog/capacity-view";
import { CatalogTabs } from "@/components/catalog/catalog-tabs";
import { loadCapacityParams } from "@/components/catalog/search-params";
import { PageHeader } from "@/components/ui/page-header";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { catalogQueries } from "@/lib/query/catalog";
import { makeQueryClient } from "@/lib/query/query-client";

export const metadata: Metadata = { title: "Catalog" };

export default async function CatalogPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const filters = await loadCapacityParams(searchParams);
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  await Promise.all(
    [catalogQueries.capacities(filters), catalogQueries.capacities(), catalogQueries.locations()].map((q) =>
      queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) }),
    ),
  );
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <PageHeader title="Catalog" description="What the platform offers: capacity by product and location, images and the container registry." />
      <CatalogTabs />
      <CapacityView />
    </HydrationBoundary>
  );
}
