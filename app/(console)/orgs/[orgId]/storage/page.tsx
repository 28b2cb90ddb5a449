import { dehydrate, HydrationBoundary, type QueryKey } from "@tanstack/react-query";
import type { Metadata } from "next";
import { S3KeysView } from "@/components/storage/s3-keys";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { orgQueries } from "@/lib/query/organizations";
import { makeQueryClient } from "@/lib/query/query-client";
import { storageQueries } from "@/lib/query/storage";
import { objectStorageConnection } from "@/lib/console/connection";
import { peopleQueries } from "@/lib/query/people";

export const metadata: Metadata = { title: "Object storage keys" };

export default async function StoragePage({ params }: { params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  const session = await requireConsoleSession();
  const queryClient = makeQueryClient();
  const queries: Array<{ queryKey: QueryKey; path: string }> = [orgQueries.entities(), storageQueries.s3Keys(orgId), peopleQueries.directory(orgId)];
  await Promise.all(queries.map((q) => queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) })));
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <S3KeysView orgId={orgId} userId={session.userId} connection={objectStorageConnection()} />
    </HydrationBoundary>
  );
}
