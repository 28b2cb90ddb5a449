import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { ReservationDetail } from "@/components/reservations/reservation-detail";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { projectQueries } from "@/lib/query/projects";
import { makeQueryClient } from "@/lib/query/query-client";
import { reservationQueries } from "@/lib/query/reservations";

export const metadata: Metadata = { title: "Reservation" };

export default async function ReservationPage({ params }: { params: Promise<{ orgId: string; reservationId: string }> }) {
  const { orgId, reservationId } = await params;
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  // The project list resolves the reservation's project ids to names.
  await Promise.all(
    [reservationQueries.detail(orgId, reservationId), projectQueries.list()].map((q) =>
      queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) }),
    ),
  );
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <ReservationDetail orgId={orgId} reservationId={reservationId} />
    </HydrationBoundary>
  );
}
