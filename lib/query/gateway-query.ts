import { queryOptions, type QueryKey } from "@tanstack/react-query";
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
