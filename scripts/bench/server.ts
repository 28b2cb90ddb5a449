/**
 * A benchmark server in a process of its own: `gateway` (the real gateway on a
 * PGlite data dir, demo data) or `bare` (one Hono route answering a constant JSON
 * body). Both are served by @hono/node-server with the standalone gateway's socket
 * settings, so the two differ only in what answers the request. The port goes to
 * the parent over IPC.
 *
 * `BENCH_SPIN_US=n` makes the bare route busy for n µs before it answers: how the
 * README's footnote 7 measured what a microsecond of a handler's own work costs the
 * server on this host (the bench itself never sets it).
 */
import { readFileSync } from "node:fs";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { startGateway } from "@/lib/gateway/runtime";

async function fetchHandler(kind: string): Promise<(request: Request) => Response | Promise<Response>> {
  if (kind === "gateway") {
    const dataDir = process.env.STRATUS_DATA_DIR;
    if (!dataDir) throw new Error("STRATUS_DATA_DIR must name the benchmark's data dir");
    const gateway = await startGateway({ dataDir, store: { kind: "pglite", dataDir }, seed: true });
    return gateway.app.fetch;
  }
  if (kind === "bare") {
    const file = process.env.BENCH_BARE_BODY;
    if (!file) throw new Error("BENCH_BARE_BODY must name the file holding the constant body");
    const body = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    const app = new Hono();
    const spinMs = Number(process.env.BENCH_SPIN_US ?? 0) / 1000;
    app.get("/v1/organizations/projects", (c) => {
      if (spinMs > 0) for (const end = performance.now() + spinMs; performance.now() < end; );
      return c.json(body);
    });
    return app.fetch;
  }
  throw new Error(`unknown server kind ${kind}`);
}

const fetch = await fetchHandler(process.argv[2] ?? "");
const server = serve({ fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
  process.send?.({ port: info.port });
});
// The same socket settings as lib/gateway/server.ts.
const http = server as unknown as { requestTimeout: number; headersTimeout: number; keepAliveTimeout: number };
http.headersTimeout = 15_000;
http.requestTimeout = 60_000;
http.keepAliveTimeout = 5_000;
process.on("disconnect", () => process.exit(0));
process.on("SIGINT", () => process.exit(0));
