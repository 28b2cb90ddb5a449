/**
 * Gateway throughput: a signed GET /v1/organizations/projects against the gateway
 * (demo data, PGlite on a temp data dir) versus a bare Hono route answering the same
 * JSON body as a constant, each in its own process, each under autocannon with 50
 * connections and a fresh signature on every request.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import type { DemoCredentials } from "@/lib/gateway/seed";
import { signedHeaders } from "@/lib/signing";
import { firstMessage, spawnTs, stopChild } from "./children";
import type { Row } from "./report";
import type { Scale } from "./scale";
import { formatInt } from "./stats";

const PATH = "/v1/organizations/projects";
const CONNECTIONS = 50;

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

async function load(port: number, credentials: { accessKeyId: string; secretKey: string }, seconds: number): Promise<Load> {
  const url = new URL(`http://127.0.0.1:${port}${PATH}`);
  const result = await autocannon({
    url: url.toString(),
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: "GET",
        path: PATH,
        // A fresh timestamp and signature per request, as a real client sends.
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, ...signedHeaders(credentials, { method: "GET", url }) } }),
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    total: result.requests.total,
  };
}

async function withServer<T>(kind: "gateway" | "bare", env: Record<string, string>, measure: (port: number) => Promise<T>): Promise<T> {
  // Server logs (the gateway's request lines, its first-start banner) are not ours to print.
  const child = spawnTs("server.ts", [kind], { env, stdio: ["ignore", "ignore", "inherit", "ipc"] });
  try {
    const { port } = await firstMessage<{ port: number }>(child);
    return await measure(port);
  } finally {
    await stopChild(child);
  }
}

export async function run(scale: Scale): Promise<Row[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "stratus-bench-throughput-"));
  try {
    const dataDir = path.join(dir, "data");
    const bodyFile = path.join(dir, "body.json");
    const gatewayEnv = { STRATUS_DATA_DIR: dataDir, STRATUS_SEED_DEMO: "1", NODE_ENV: "production" };
    let credentials = { accessKeyId: "", secretKey: "" };
    const gateway = await withServer("gateway", gatewayEnv, async (port) => {
      const demo = JSON.parse(readFileSync(path.join(dataDir, "demo-credentials.json"), "utf8")) as DemoCredentials;
      credentials = { accessKeyId: demo.owner.access_key_id, secretKey: demo.owner.secret_key };
      const url = `http://127.0.0.1:${port}${PATH}`;
      const first = await fetch(url, { headers: signedHeaders(credentials, { method: "GET", url }) });
      if (first.status !== 200) throw new Error(`the gateway answered ${first.status} to a signed ${PATH}`);
      writeFileSync(bodyFile, await first.text());
      await load(port, credentials, scale.warmupSeconds);
      return load(port, credentials, scale.loadSeconds);
    });
    const bare = await withServer("bare", { BENCH_BARE_BODY: bodyFile, NODE_ENV: "production" }, async (port) => {
      await load(port, credentials, scale.warmupSeconds);
      return load(port, credentials, scale.loadSeconds);
    });
    // A wrong answer means the benchmark measures the wrong thing; a request that timed out (10 s) is a result.
    for (const [name, l] of [["gateway", gateway], ["bare route", bare]] as const) {
      if (l.non2xx > 0) throw new Error(`${name}: ${l.non2xx} non-2xx answers of ${l.total}`);
    }
    const errors = (l: Load) => (l.errors ? `, ${l.errors} of ${formatInt(l.total)} requests unanswered within 10 s` : "");
    const ratio = gateway.rps / bare.rps;
    const how = `signed GET ${PATH} (demo data, PGlite on a temp dir) vs a bare Hono route with the same constant body; @hono/node-server in a child process each; autocannon, ${CONNECTIONS} connections, ${scale.loadSeconds} s after ${scale.warmupSeconds} s warm-up, fresh signature per request`;
    return [
      {
        what: "gateway throughput",
        how,
        measured: `${formatInt(gateway.rps)} req/s vs ${formatInt(bare.rps)} req/s = ${ratio.toFixed(2)} of the bare route`,
        // Kong's published ratio with key-auth and rate limiting is 0.76 of no plugins.
        budget: "≥ 0.75 of the bare route",
        pass: ratio >= 0.75,
      },
      {
        what: "gateway latency",
        how: "the same gateway run",
        measured: `p99 ${gateway.p99} ms (p50 ${gateway.p50} ms${errors(gateway)}; bare route p99 ${bare.p99} ms${errors(bare)})`,
        budget: "p99 ≤ 2 × the bare route's p99, same run",
        pass: gateway.p99 <= 2 * bare.p99 && gateway.errors === 0,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
