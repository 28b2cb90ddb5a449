import { serve } from "@hono/node-server";
import { installRequestGuard } from "@/lib/client-address";
import { env } from "@/lib/env";
import { startGateway } from "./runtime";

/** Runs the gateway on its own: `npm run gateway`. */
export async function runServer(): Promise<void> {
  const config = env();
  const gateway = await startGateway();
  // TRACE and other methods a fetch Request refuses are 405 before the adapter builds one.
  installRequestGuard();
  const server = serve({ fetch: gateway.app.fetch, port: config.PORT, hostname: config.HOST }, (info) => {
    gateway.deps.logger.info("gateway listening", { port: info.port, store: gateway.store.kind });
  });
  // Slow or idle clients cannot hold sockets open forever.
  const http = server as unknown as { requestTimeout: number; headersTimeout: number; keepAliveTimeout: number };
  http.headersTimeout = 15_000;
  http.requestTimeout = 60_000;
  http.keepAliveTimeout = 5_000;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    gateway.deps.logger.info("shutting down", { signal });
    // Finish in-flight requests, then close the store; give up after 10 s.
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    server.close(async () => {
      await gateway.close();
      process.exit(0);
    });
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}
