import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import type { SearchParams } from "nuqs/server";
import { GpuTracking } from "@/components/reservations/gpu-tracking";
import { customRangeProblem } from "@/components/reservations/gpu-range";
import { loadGpuTrackingParams } from "@/components/reservations/search-params";
import { PageHeader } from "@/components/ui/page-header";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { orgAccess, orgQueries, type ListEntitiesResponse } from "@/lib/query/organizations";
import { makeQueryClient } from "@/lib/query/query-client";
import { reservationQueries } from "@/lib/query/reservations";

export const metadata: Metadata = { title: "GPU tracking" };

export default async function GpuTrackingPage({ params, searchParams }: { params: Promise<{ orgId: string }>; searchParams: Promise<SearchParams> }) {
  const { orgId } = await params;
  const p = await loadGpuTrackingParams(searchParams);
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  const entities = orgQueries.entities();
  const { items } = await queryClient.fetchQuery({ queryKey: entities.queryKey, queryFn: () => cloudJson<ListEntitiesResponse>(session, entities.path) });
  // Without the feature the page explains why, and asks the gateway for nothing it would refuse.
  if (orgAccess(items.find((o) => o.id === orgId)).features.reservations === true) {
    const filters = { product_line: p.product_line ?? undefined, region: p.region ?? undefined };
    const queries = [reservationQueries.gpuTrackingLatest(orgId), reservationQueries.gpuTrackingLatest(orgId, filters)];
    const rangeOk = p.range !== "custom" || customRangeProblem(p.start, p.end) === null;
    const series = rangeOk ? [reservationQueries.gpuTracking(orgId, { range: p.range, start: p.start ?? undefined, end: p.end ?? undefined, ...filters })] : [];
    await Promise.all(
      [...queries, ...series].map((q) => queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) })),
    );
  }
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <PageHeader title="GPU tracking" description="GPU usage against reserved capacity, by product line and region." />
      <GpuTracking orgId={orgId} />
    </HydrationBoundary>
  );
}
