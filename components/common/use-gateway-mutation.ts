"use client";

import { useMutation, useQueryClient, type QueryKey } from "@tanstack/react-query";
import { toast } from "@/components/ui/toast";
import { apiFetch, errorMessage } from "@/lib/query/fetcher";

interface GatewayCall {
  method: "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

interface GatewayMutationOptions<V, R> {
  /**
   * The gateway call for the given input; a promise of it when the call is built from what the gateway holds now (a
   * body that restates a whole setting, read afresh so that another admin's change meanwhile is not undone).
   */
  request: (vars: V) => GatewayCall | Promise<GatewayCall>;
  /**
   * Query keys to refresh afterwards (an area's root refreshes the whole area); `{ exact }` for that query alone, not
   * those under it (a list whose key starts its items' keys, when an item is deleted: its own query would answer 404).
   */
  invalidate: (vars: V, result: R | undefined) => Array<QueryKey | { exact: QueryKey }>;
  /** Toast text on success; none when omitted. */
  success?: (result: R, vars: V) => string;
  onSuccess?: (result: R, vars: V) => void;
  /** Toast text on failure, in words; the gateway's message when omitted. */
  failure?: (error: unknown) => string;
  /**
   * The answer holds a secret shown once (a key's secret, a token): the mutation leaves the cache as soon as the
   * component lets go of it (`reset()` on closing the secret), not the cache's five minutes later.
   */
  holdsSecret?: boolean;
}

/**
 * A mutation through the backend-for-frontend: a toast either way, and the
 * affected queries refreshed (the audit log's too: every mutation lands there).
 */
export function useGatewayMutation<V, R = unknown>(options: GatewayMutationOptions<V, R>) {
  const queryClient = useQueryClient();
  return useMutation<R, unknown, V>({
    ...(options.holdsSecret ? { gcTime: 0 } : {}),
    mutationFn: async (vars) => {
      const { method, path, query, body } = await options.request(vars);
      return apiFetch<R>(path, { method, query, body });
    },
    onSuccess: (result, vars) => {
      if (options.success) toast.success(options.success(result, vars));
      options.onSuccess?.(result, vars);
    },
    onError: (error) => {
      toast.error(options.failure ? options.failure(error) : errorMessage(error));
    },
    onSettled: async (result, _error, vars) => {
      const keys = [...options.invalidate(vars, result), ["audit-logs"]];
      await Promise.all(keys.map((key) => queryClient.invalidateQueries("exact" in key ? { queryKey: key.exact, exact: true } : { queryKey: key })));
    },
  });
}
