import { serve, type ServerType } from "@hono/node-server";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { installRequestGuard } from "@/lib/client-address";
import { runBeforeEachStatement } from "@/lib/db/background";
import { env } from "@/lib/env";
import { CoalescedResponse, sendWaitingAnswers, sendWaitingOnClientEnd } from "./coalesced-response";
import { startGateway } from "./runtime";

/**
 * An HTTP server as the standalone gateway runs one: answers of one turn of the event loop written
 * together (coalesced-response.ts; the embedded store's statements and a client's half-close send
 * them first), and socket time limits so that slow or idle clients cannot hold sockets open
 * forever. The benchmark serves its bare route with it too, so that the two differ only in what
 * answers.
 */
export function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  address: { port: number; hostname: string },
  onListening?: (info: AddressInfo) => void,
): ServerType {
  const server = serve({ fetch, ...address, serverOptions: { ServerResponse: CoalescedResponse } }, onListening);
  sendWaitingOnClientEnd(server as Server);
  runBeforeEachStatement(sendWaitingAnswers);
  const http = server as unknown as { requestTimeout: number; headersTimeout: number; keepAliveTimeout: number };
  http.headersTimeout = 15_000;
  http.requestTimeout = 60_000;
  http.keepAliveTimeout = 5_000;
  return server;
}

/** Runs the gateway on its own: `npm run gateway`. */
export async function runServer(): Promise<void> {
  const config = env();
  const gateway = await startGateway();
  // TRACE and other methods a fetch Request refuses are 405 before the adapter builds one.
  installRequestGuard();
  const server = listen(gateway.app.fetch, { port: config.PORT, hostname: config.HOST }, (info) => {
    gateway.deps.logger.info("gateway listening", { port: info.port, store: gateway.store.kind });
  });
  // The address taken, not allowed, or no such host: said plainly, the store closed (its lock released), exit 1.
  server.once("error", (error: NodeJS.ErrnoException) => {
    gateway.deps.logger.error("the gateway cannot listen", { host: config.HOST, port: config.PORT, error: error.code ?? error.message });
    void gateway.close().finally(() => process.exit(1));
  });
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
