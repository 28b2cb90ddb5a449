import { dehydrate, HydrationBoundary, type QueryKey } from "@tanstack/react-query";
import type { Metadata } from "next";
import { ScimIntegrationDetail } from "@/components/security/scim-integration-detail";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { iamQueries } from "@/lib/query/iam";
import { orgAccess, orgQueries, type ListEntitiesResponse } from "@/lib/query/organizations";
import { peopleQueries } from "@/lib/query/people";
import { projectQueries } from "@/lib/query/projects";
import { makeQueryClient } from "@/lib/query/query-client";
import { scimQueries } from "@/lib/query/security";

export const metadata: Metadata = { title: "SCIM integration" };

export default async function ScimIntegrationPage({ params }: { params: Promise<{ orgId: string; integrationId: string }> }) {
  const { orgId, integrationId } = await params;
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  const prefetch = (q: { queryKey: QueryKey; path: string }) => queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) });
  const entities = orgQueries.entities();
  // The entities carry the caller's permissions: the provisioning sections are shown (and asked for) with scim.manage only.
  const [items] = await Promise.all([
    queryClient
      .fetchQuery({ queryKey: entities.queryKey, queryFn: () => cloudJson<ListEntitiesResponse>(session, entities.path) })
      .then((answer) => answer.items)
      .catch(() => []),
    // The integration's card names its creator from the people directory.
    ...[scimQueries.detail(orgId, integrationId), scimQueries.tokens(orgId, integrationId), peopleQueries.directory(orgId)].map(prefetch),
  ]);
  if (orgAccess(items.find((o) => o.id === orgId)).can("scim.manage")) {
    await Promise.all(
      // The mappings' project pickers name the organization's projects.
      [scimQueries.provisioned(orgId, integrationId), scimQueries.mappings(orgId, integrationId), iamQueries.roles(), projectQueries.list(), scimQueries.activity(orgId, integrationId)].map(
        prefetch,
      ),
    );
  }
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <ScimIntegrationDetail orgId={orgId} integrationId={integrationId} />
    </HydrationBoundary>
  );
}
