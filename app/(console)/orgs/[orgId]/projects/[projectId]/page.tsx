import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { ProjectDetail } from "@/components/projects/project-detail";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { iamQueries } from "@/lib/query/iam";
import { orgQueries } from "@/lib/query/organizations";
import { peopleQueries } from "@/lib/query/people";
import { projectQueries } from "@/lib/query/projects";
import { makeQueryClient } from "@/lib/query/query-client";

export const metadata: Metadata = { title: "Project" };

export default async function ProjectPage({ params }: { params: Promise<{ orgId: string; projectId: string }> }) {
  const { orgId, projectId } = await params;
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  const queries = [
    orgQueries.entities(),
    projectQueries.detail(projectId),
    projectQueries.vms(projectId),
    iamQueries.bindings({ user_id: session.userId }),
    peopleQueries.permissions(orgId),
  ];
  // A query that fails here renders its own error state in the browser.
  await Promise.all(queries.map((q) => queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) })));
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <ProjectDetail orgId={orgId} projectId={projectId} selfId={session.userId} />
    </HydrationBoundary>
  );
}
