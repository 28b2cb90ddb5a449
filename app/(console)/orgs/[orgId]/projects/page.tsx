import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import type { SearchParams } from "nuqs/server";
import type { z } from "zod";
import { loadProjectSearch } from "@/components/projects/filters";
import { ProjectsView } from "@/components/projects/projects-view";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import type { listEntitiesResponseSchema } from "@/lib/contract/organizations";
import { iamQueries } from "@/lib/query/iam";
import { orgQueries } from "@/lib/query/organizations";
import { peopleQueries } from "@/lib/query/people";
import { projectQueries } from "@/lib/query/projects";
import { makeQueryClient } from "@/lib/query/query-client";

export const metadata: Metadata = { title: "Projects" };

export default async function ProjectsPage({ params, searchParams }: { params: Promise<{ orgId: string }>; searchParams: Promise<SearchParams> }) {
  const { orgId } = await params;
  const { project_name: name } = await loadProjectSearch(searchParams);
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  const entities = orgQueries.entities();
  const list = projectQueries.list(name ? { project_name: name } : {});
  const own = iamQueries.bindings({ user_id: session.userId });
  const effective = peopleQueries.permissions(orgId);
  const [orgs] = await Promise.all([
    queryClient.fetchQuery({ queryKey: entities.queryKey, queryFn: () => cloudJson<z.infer<typeof listEntitiesResponseSchema>>(session, entities.path) }),
    queryClient.prefetchQuery({ queryKey: list.queryKey, queryFn: () => cloudJson(session, list.path) }),
    queryClient.prefetchQuery({ queryKey: own.queryKey, queryFn: () => cloudJson(session, own.path) }),
    queryClient.prefetchQuery({ queryKey: effective.queryKey, queryFn: () => cloudJson(session, effective.path) }),
  ]);
  const orgName = orgs.items.find((o) => o.id === orgId)?.name ?? "this organization";
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <ProjectsView orgId={orgId} orgName={orgName} selfId={session.userId} />
    </HydrationBoundary>
  );
}
