import { dehydrate, HydrationBoundary, type QueryKey } from "@tanstack/react-query";
import type { Metadata } from "next";
import type { SearchParams } from "nuqs/server";
import { PeopleView } from "@/components/people/people-view";
import { loadPeopleSearchParams, PEOPLE_PAGE_SIZE } from "@/components/people/search-params";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { iamQueries } from "@/lib/query/iam";
import { orgQueries } from "@/lib/query/organizations";
import { peopleQueries } from "@/lib/query/people";
import { makeQueryClient } from "@/lib/query/query-client";

export const metadata: Metadata = { title: "People" };

export default async function PeoplePage({ params, searchParams }: { params: Promise<{ orgId: string }>; searchParams: Promise<SearchParams> }) {
  const { orgId } = await params;
  const search = await loadPeopleSearchParams(searchParams);
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  const list = peopleQueries.list(orgId, {
    q: search.q || undefined,
    status: search.status ?? undefined,
    limit: PEOPLE_PAGE_SIZE,
    next_token: search.next ?? undefined,
    prev_token: search.prev ?? undefined,
  });
  // The roles tell this organization's bindings from the others' (the list spans all of the caller's).
  const queries: Array<{ queryKey: QueryKey; path: string }> = [orgQueries.entities(), list, iamQueries.bindings(), iamQueries.roles()];
  // A query that fails here renders its own error state in the browser.
  await Promise.all(queries.map((q) => queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) })));
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <PeopleView orgId={orgId} selfId={session.userId} />
    </HydrationBoundary>
  );
}
