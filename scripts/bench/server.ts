/**
 * A benchmark server in a process of its own: `gateway` (the real gateway on a
 * PGlite data dir, demo data) or `bare` (one Hono route answering a constant JSON
 * body). Both are served by the standalone gateway's own server (`listen`:
 * @hono/node-server, its socket settings, its coalesced answers), so the two differ only in
 * what answers the request; the gateway also has its request guard, as `npm run gateway`
 * installs it (the client's address, the count of requests in flight). The port goes to the
 * parent over IPC.
 *
 * `BENCH_SPIN_US=n` makes the bare route busy for n µs before it answers: how the
 * README's footnote 7 measured what a microsecond of a handler's own work costs the
 * server on this host (the bench itself never sets it).
 */
import { readFileSync } from "node:fs";
import { Hono } from "hono";
import { installRequestGuard } from "@/lib/client-address";
import { startGateway } from "@/lib/gateway/runtime";
import { listen } from "@/lib/gateway/server";

async function fetchHandler(kind: string): Promise<(request: Request) => Response | Promise<Response>> {
  if (kind === "gateway") {
    const dataDir = process.env.STRATUS_DATA_DIR;
    if (!dataDir) throw new Error("STRATUS_DATA_DIR must name the benchmark's data dir");
    const gateway = await startGateway({ dataDir, store: { kind: "pglite", dataDir }, seed: true });
    installRequestGuard();
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
listen(fetch, { port: 0, hostname: "127.0.0.1" }, (info) => {
  process.send?.({ port: info.port });
});
process.on("disconnect", () => process.exit(0));
process.on("SIGINT", () => process.exit(0));
