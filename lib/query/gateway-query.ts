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
  };
}

export function segment(value: string): string {
  return encodeURIComponent(value);
}
