import { partialMatchKey, queryOptions, type QueryKey } from "@tanstack/react-query";
import { apiFetch, toQueryString, type QueryParams } from "./fetcher";

/**
 * queryOptions for one gateway GET, plus the gateway path it reads, so a server
 * component can prefetch the very same key with cloudJson(session, path):
 *
 *   const q = projectQueries.list({ org_id });
 *   await queryClient.prefetchQuery({ queryKey: q.queryKey, queryFn: () => cloudJson(session, q.path) });
 */
export function gatewayQuery<T, K extends QueryKey>(queryKey: K, path: string, query?: QueryParams) {
  return {
    ...queryOptions({ queryKey, queryFn: () => apiFetch<T>(path, { query }) }),
    path: `${path}${toQueryString(query)}`,
    /** What the cache holds of the gateway's answer: all of it. */
    fromGateway: (answer: unknown) => answer as T,
  };
}

/**
 * A query of what a page shows, computed from one gateway GET: the browser fetches and summarizes,
 * and a server component prefetches with `cloudJson(session, q.path).then(q.fromGateway)`. Only the
 * summary is cached, and sent with the page: a month of cost rows is about a megabyte, its daily
 * totals a few hundred bytes.
 */
export function gatewaySummaryQuery<Answer, T, K extends QueryKey>(queryKey: K, path: string, query: QueryParams | undefined, summarize: (answer: Answer) => T) {
  return {
    ...queryOptions({ queryKey, queryFn: async () => summarize(await apiFetch<Answer>(path, { query })) }),
    path: `${path}${toQueryString(query)}`,
    fromGateway: (answer: unknown) => summarize(answer as Answer),
  };
}

/**
 * A query of what a page shows, computed from a gateway query's answer and the page's own parameters
 * (filters the gateway does not take). The server prefetches it with `q.fromGateway(await
 * cloudJson(session, q.path))` and sends only it; in the browser it reads the answer through the
 * cache (fetchQuery: fresh for the client's staleTime), so changing the parameters fetches the answer
 * once and then only computes. Meanwhile the previous parameters' result stays on screen when it was
 * computed from the same answer (placeholderData), rather than a loading state for a moment.
 */
export function derivedGatewayQuery<Answer, K extends QueryKey, P, T>(source: ReturnType<typeof gatewayQuery<Answer, K>>, params: P, derive: (answer: Answer, params: P) => T) {
  return {
    ...queryOptions({
      queryKey: [...source.queryKey, "derived", params] as const,
      queryFn: async ({ client }) => derive(await client.fetchQuery({ queryKey: source.queryKey, queryFn: source.queryFn }), params),
      placeholderData: (previous, previousQuery) => (previousQuery && partialMatchKey(previousQuery.queryKey, source.queryKey) ? previous : undefined),
    }),
    path: source.path,
    fromGateway: (answer: unknown) => derive(answer as Answer, params),
  };
}
