/**
 * Gateway throughput: a signed GET /v1/organizations/projects against the gateway
 * (demo data, PGlite on a temp data dir) versus a bare Hono route answering the same
 * JSON body as a constant, each in its own process, each under autocannon with 50
 * connections and a fresh signature on every request. The two are loaded in turn over
 * several rounds and judged by the median of the rounds' ratios: on this kind of host a
 * single run of either can drop by half for a few seconds, which one pair of runs took
 * for the gateway's (or the bare route's) speed.
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
import { formatInt, median } from "./stats";

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

/** A benchmark server in a child process of its own, until stopped. */
async function startServer(kind: "gateway" | "bare", env: Record<string, string>): Promise<{ port: number; stop: () => Promise<void> }> {
  // Server logs (the gateway's request lines, its first-start banner) are not ours to print.
  const child = spawnTs("server.ts", [kind], { env, stdio: ["ignore", "ignore", "inherit", "ipc"] });
  try {
    const { port } = await firstMessage<{ port: number }>(child);
    return { port, stop: () => stopChild(child) };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/** Rounds of load, each server in turn: a machine whose speed drifts during the run affects both alike. */
const ROUNDS = 4;

export async function run(scale: Scale): Promise<Row[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "stratus-bench-throughput-"));
  const servers: Array<{ stop: () => Promise<void> }> = [];
  try {
    const dataDir = path.join(dir, "data");
    const bodyFile = path.join(dir, "body.json");
    const gateway = await startServer("gateway", { STRATUS_DATA_DIR: dataDir, STRATUS_SEED_DEMO: "1", NODE_ENV: "production" });
    servers.push(gateway);
    const demo = JSON.parse(readFileSync(path.join(dataDir, "demo-credentials.json"), "utf8")) as DemoCredentials;
    const credentials = { accessKeyId: demo.owner.access_key_id, secretKey: demo.owner.secret_key };
    const url = `http://127.0.0.1:${gateway.port}${PATH}`;
    const first = await fetch(url, { headers: signedHeaders(credentials, { method: "GET", url }) });
    if (first.status !== 200) throw new Error(`the gateway answered ${first.status} to a signed ${PATH}`);
    writeFileSync(bodyFile, await first.text());
    const bare = await startServer("bare", { BENCH_BARE_BODY: bodyFile, NODE_ENV: "production" });
    servers.push(bare);

    await load(gateway.port, credentials, scale.warmupSeconds);
    await load(bare.port, credentials, scale.warmupSeconds);
    const seconds = Math.max(1, Math.round(scale.loadSeconds / 2));
    const rounds: Array<{ gateway: Load; bare: Load }> = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Which goes first alternates, so neither always follows the other's load.
      if (i % 2 === 0) {
        const g = await load(gateway.port, credentials, seconds);
        rounds.push({ gateway: g, bare: await load(bare.port, credentials, seconds) });
      } else {
        const b = await load(bare.port, credentials, seconds);
        rounds.push({ gateway: await load(gateway.port, credentials, seconds), bare: b });
      }
    }
    // A wrong answer means the benchmark measures the wrong thing; a request that timed out (10 s) is a result.
    for (const round of rounds) {
      for (const [name, l] of [["gateway", round.gateway], ["bare route", round.bare]] as const) {
        if (l.non2xx > 0) throw new Error(`${name}: ${l.non2xx} non-2xx answers of ${l.total}`);
      }
    }
    const ratios = rounds.map((r) => r.gateway.rps / r.bare.rps);
    const ratio = median(ratios);
    const gatewayRps = median(rounds.map((r) => r.gateway.rps));
    const bareRps = median(rounds.map((r) => r.bare.rps));
    const gatewayP99 = median(rounds.map((r) => r.gateway.p99));
    const bareP99 = median(rounds.map((r) => r.bare.p99));
    const errors = (of: (r: { gateway: Load; bare: Load }) => Load) => rounds.reduce((sum, r) => sum + of(r).errors, 0);
    const total = (of: (r: { gateway: Load; bare: Load }) => Load) => rounds.reduce((sum, r) => sum + of(r).total, 0);
    const unanswered = (of: (r: { gateway: Load; bare: Load }) => Load) =>
      errors(of) ? `, ${errors(of)} of ${formatInt(total(of))} requests unanswered within 10 s` : "";
    const how =
      `signed GET ${PATH} (demo data, PGlite on a temp dir) vs a bare Hono route with the same constant body; @hono/node-server in a child process each; ` +
      `autocannon, ${CONNECTIONS} connections, fresh signature per request; ${scale.warmupSeconds} s warm-up each, then ${ROUNDS} rounds of ${seconds} s on each server in turn (alternating which goes first); the median of the rounds' ratios`;
    return [
      {
        what: "gateway throughput",
        how,
        measured: `${formatInt(gatewayRps)} req/s vs ${formatInt(bareRps)} req/s (medians) = ${ratio.toFixed(2)} of the bare route (rounds ${ratios.map((r) => r.toFixed(2)).join(", ")})`,
        // Kong's published ratio with key-auth and rate limiting is 0.76 of no plugins.
        budget: "≥ 0.75 of the bare route",
        pass: ratio >= 0.75,
      },
      {
        what: "gateway latency",
        how: "the same gateway rounds; medians of the rounds' percentiles",
        measured: `p99 ${gatewayP99} ms (p50 ${median(rounds.map((r) => r.gateway.p50))} ms${unanswered((r) => r.gateway)}; bare route p99 ${bareP99} ms${unanswered((r) => r.bare)})`,
        budget: "p99 ≤ 2 × the bare route's p99, same run",
        pass: gatewayP99 <= 2 * bareP99 && errors((r) => r.gateway) === 0,
      },
    ];
  } finally {
    for (const server of servers.reverse()) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
