import { isServer, QueryClient, defaultShouldDehydrateQuery } from "@tanstack/react-query";

interface WithStatus {
  status?: number;
}

/** One factory for server and browser: no retries on the server or after a 4xx, pending queries dehydrated. */
export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        retry: (failures, error) => {
          if (isServer) return false;
          const status = (error as WithStatus).status;
          if (status !== undefined && status >= 400 && status < 500) return false;
          return failures < 2;
        },
      },
      dehydrate: {
        shouldDehydrateQuery: (query) => defaultShouldDehydrateQuery(query) || query.state.status === "pending",
      },
    },
  });
}

let browserClient: QueryClient | undefined;

/** The browser keeps one client for the page's life; the server makes one per request. */
export function getQueryClient(): QueryClient {
  if (isServer) return makeQueryClient();
  browserClient ??= makeQueryClient();
  return browserClient;
}
