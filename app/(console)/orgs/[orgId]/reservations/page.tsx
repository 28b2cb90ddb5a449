import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import type { SearchParams } from "nuqs/server";
import { GpuTrackingLink } from "@/components/reservations/gpu-tracking-link";
import { ReservationsList } from "@/components/reservations/reservations-list";
import { loadReservationListParams } from "@/components/reservations/search-params";
import { PageHeader } from "@/components/ui/page-header";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { orgQueries } from "@/lib/query/organizations";
import { makeQueryClient } from "@/lib/query/query-client";
import { reservationQueries } from "@/lib/query/reservations";

export const metadata: Metadata = { title: "Reservations" };

export default async function ReservationsPage({ params, searchParams }: { params: Promise<{ orgId: string }>; searchParams: Promise<SearchParams> }) {
  const { orgId } = await params;
  const { status } = await loadReservationListParams(searchParams);
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  // The entities carry the caller's features: the GPU tracking link is offered only with the reservations feature.
  // Without a status filter, the cancelled list marks which reservations are cancelled; the effective
  // list sums the GPUs in use (the same query when it is the filter: prefetched once).
  const lists = [
    ...(status ? [reservationQueries.list(orgId, status)] : [reservationQueries.list(orgId), reservationQueries.list(orgId, "cancelled")]),
    reservationQueries.list(orgId, "effective"),
  ];
  await Promise.all(
    [...lists, orgQueries.entities()].map((q) =>
      queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) }),
    ),
  );
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <PageHeader
        title="Reservations"
        description="Capacity your organization has reserved, by product line and location."
        actions={<GpuTrackingLink orgId={orgId} />}
      />
      <ReservationsList orgId={orgId} />
    </HydrationBoundary>
  );
}
