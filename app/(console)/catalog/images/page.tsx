import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import type { SearchParams } from "nuqs/server";
import { CatalogTabs } from "@/components/catalog/catalog-tabs";
import { ImagesList } from "@/components/catalog/images-list";
import { loadImageParams } from "@/components/catalog/search-params";
import { PageHeader } from "@/components/ui/page-header";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { catalogQueries } from "@/lib/query/catalog";
import { makeQueryClient } from "@/lib/query/query-client";

export const metadata: Metadata = { title: "Images" };

export default async function ImagesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { product_group } = await loadImageParams(searchParams);
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  // The capacity list names the product groups to filter by.
  await Promise.all(
    [catalogQueries.images(product_group ?? undefined), catalogQueries.capacities()].map((q) =>
      queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) }),
    ),
  );
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <PageHeader title="Catalog" description="What the platform offers: capacity by product and location, images and the container registry." />
      <CatalogTabs />
      <ImagesList />
    </HydrationBoundary>
  );
}
