import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import type { SearchParams } from "nuqs/server";
import { loadBindingFilters, toBindingQuery } from "@/components/iam/filters";
import { IamView } from "@/components/iam/iam-view";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { iamQueries } from "@/lib/query/iam";
import { orgQueries } from "@/lib/query/organizations";
import { projectQueries } from "@/lib/query/projects";
import { peopleQueries } from "@/lib/query/people";
import { makeQueryClient } from "@/lib/query/query-client";

export const metadata: Metadata = { title: "IAM" };

export default async function IamPage({ params, searchParams }: { params: Promise<{ orgId: string }>; searchParams: Promise<SearchParams> }) {
  const { orgId } = await params;
  const filters = await loadBindingFilters(searchParams);
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  const queries = [orgQueries.entities(), iamQueries.roles(), projectQueries.list(), iamQueries.bindings(toBindingQuery(filters)), peopleQueries.directory(orgId)];
  // A query that fails here renders its own error state in the browser.
  await Promise.all(queries.map((q) => queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) })));
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <IamView orgId={orgId} selfId={session.userId} />
    </HydrationBoundary>
  );
}
