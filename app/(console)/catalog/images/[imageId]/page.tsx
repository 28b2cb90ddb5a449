import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { CatalogTabs } from "@/components/catalog/catalog-tabs";
import { ImageDetail } from "@/components/catalog/image-detail";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { catalogQueries } from "@/lib/query/catalog";
import { makeQueryClient } from "@/lib/query/query-client";

export const metadata: Metadata = { title: "Image" };

export default async function ImagePage({ params }: { params: Promise<{ imageId: string }> }) {
  const { imageId } = await params;
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  const q = catalogQueries.image(imageId);
  await queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) });
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <CatalogTabs />
      <ImageDetail imageId={imageId} />
    </HydrationBoundary>
  );
}
