import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { overviewQueries } from "@/components/overview/queries";
import { AuditWidget, QuotasWidget, ReservationsWidget, ResourcesWidget, SpendWidget } from "@/components/overview/widgets";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { makeQueryClient } from "@/lib/query/query-client";
import { orgQueries, type ListEntitiesResponse } from "@/lib/query/organizations";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage({ params }: { params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  // Widgets of areas the caller may not open are not shown (nor fetched).
  const entities = await cloudJson<ListEntitiesResponse>(session, orgQueries.entities().path);
  const held = new Set(entities.items.find((o) => o.id === orgId)?.permissions ?? []);
  const { spend, quotas, audit, ...always } = overviewQueries(orgId);
  const shown = { ...always, ...(held.has("billing.read") ? { spend, quotas } : {}), ...(held.has("audit.read") ? { audit } : {}) };
  // Prefetch every widget in parallel; one that fails renders its own error state in the browser.
  await Promise.all(
    Object.values(shown).map((q) =>
      queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: async () => q.fromGateway(await cloudJson(session, q.path)) as unknown }),
    ),
  );
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <div className="space-y-6">
        <h1 className="text-2xl font-semibold tracking-tight">Overview</h1>
        <div className="grid grid-cols-1 gap-4 md:grid-cols-2 xl:grid-cols-3">
          <ResourcesWidget orgId={orgId} />
          {"spend" in shown ? <SpendWidget orgId={orgId} /> : null}
          {"quotas" in shown ? <QuotasWidget orgId={orgId} /> : null}
          <ReservationsWidget orgId={orgId} />
          {"audit" in shown ? (
            <div className="min-w-0 md:col-span-2">
              <AuditWidget orgId={orgId} />
            </div>
          ) : null}
        </div>
      </div>
    </HydrationBoundary>
  );
}
