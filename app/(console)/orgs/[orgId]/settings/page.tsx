import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { OrganizationSettings } from "@/components/settings/organization-settings";
import { PageHeader } from "@/components/ui/page-header";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { orgQueries } from "@/lib/query/organizations";
import { makeQueryClient } from "@/lib/query/query-client";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage({ params }: { params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  const entities = orgQueries.entities();
  await queryClient.prefetchQuery({ queryKey: entities.queryKey, queryFn: () => cloudJson(session, entities.path) });
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <PageHeader title="Organization settings" description="Name, company, tax identifier and billing address of the organization." />
      <OrganizationSettings orgId={orgId} />
    </HydrationBoundary>
  );
}
