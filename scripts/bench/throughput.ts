/**
 * Gateway throughput: a signed GET /v1/organizations/projects against the gateway
 * (demo data, PGlite on a temp data dir) versus a bare Hono route answering the same
 * JSON body as a constant, each in its own process, each under autocannon with 50
 * connections and a fresh signature on every request. The two are loaded in turn over
 * several rounds and judged by the median of the rounds' ratios: on this kind of host a
 * single run of either can drop by half for a few seconds, which one pair of runs took
 * for the gateway's (or the bare route's) speed.
 *
 * Each load also counts CPU time per answer: the server's (user + system, from
 * /proc/<pid>/stat, all its threads) and the load generator's (this process). The two
 * share the host's cores, so the ratio depends on which of them runs out first; the CPU
 * per answer says how much of each answer is the gateway's own, whatever the host's speed.
 *
 * Each server is warmed up until it runs as it will from then on: under load, V8 keeps
 * compiling the gateway's hot code on its background threads for its first 3 to 10 s of
 * load (on this kind of host, at times nearly a whole core), while the bare route's one
 * handler is compiled at once. A fixed 3 s warm-up measured the gateway's first round while
 * its compiler still took a core's share from both processes. Warm-up loads go on until the server's
 * threads other than its main one took under 5 % of its CPU in one (they then serve
 * only the collector's short parallel steps).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  /** CPU time per answer, µs: the server process's, and this process's (the load generator); null off Linux. */
  serverCpuUs: number | null;
  clientCpuUs: number;
}

/** One round: a load on each server. */
interface Round {
  gateway: Load;
  bare: Load;
}

/** CPU time so far (user + system) from a /proc stat file, in µs; null when the file is not there. */
function statCpuUs(file: string): number | null {
  let stat: string;
  try {
    stat = readFileSync(file, "utf8");
  } catch {
    return null; // no /proc here, or a thread that has just ended
  }
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticksPerSecond = 100; // USER_HZ, 100 on every Linux this runs on
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / ticksPerSecond;
}

/** A process's CPU time so far, all threads, in µs; null where /proc is not there. */
const processCpuUs = (pid: number) => statCpuUs(`/proc/${pid}/stat`);

/** A process's CPU time so far, in µs, split into its main thread's and its other threads'; null where /proc is not there. */
function threadsCpuUs(pid: number): { main: number; others: number } | null {
  const dir = `/proc/${pid}/task`;
  if (!existsSync(dir)) return null;
  let main = 0;
  let others = 0;
  for (const tid of readdirSync(dir)) {
    const us = statCpuUs(`${dir}/${tid}/stat`) ?? 0;
    if (Number(tid) === pid) main += us;
    else others += us;
  }
  return { main, others };
}

/** The most of a server's CPU its other threads may take in a warm-up load for it to count as warmed up. */
const SETTLED_SHARE = 0.05;

/**
 * Warm-up loads of `scale.warmupSeconds` until the server's other threads (V8's compiler
 * and collector helpers) took under SETTLED_SHARE of its CPU in one, or for at most
 * `scale.warmupMaxSeconds`. Where /proc is not there, one load.
 */
async function warmUp(server: { port: number; pid: number }, credentials: { accessKeyId: string; secretKey: string }, scale: Scale): Promise<{ seconds: number; settled: boolean | null }> {
  let seconds = 0;
  for (;;) {
    const before = threadsCpuUs(server.pid);
    await load(server, credentials, scale.warmupSeconds);
    seconds += scale.warmupSeconds;
    const after = threadsCpuUs(server.pid);
    if (!before || !after) return { seconds, settled: null };
    const others = after.others - before.others;
    if (others <= SETTLED_SHARE * (after.main - before.main + others)) return { seconds, settled: true };
    if (seconds >= scale.warmupMaxSeconds) return { seconds, settled: false };
  }
}

async function load(server: { port: number; pid: number }, credentials: { accessKeyId: string; secretKey: string }, seconds: number): Promise<Load> {
  const url = new URL(`http://127.0.0.1:${server.port}${PATH}`);
  const serverBefore = processCpuUs(server.pid);
  const clientBefore = process.cpuUsage();
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
  const client = process.cpuUsage(clientBefore);
  const serverAfter = processCpuUs(server.pid);
  const answers = Math.max(1, result.requests.total);
  return {
    serverCpuUs: serverBefore === null || serverAfter === null ? null : (serverAfter - serverBefore) / answers,
    clientCpuUs: (client.user + client.system) / answers,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    total: result.requests.total,
  };
}

/** A benchmark server in a child process of its own, until stopped. */
async function startServer(kind: "gateway" | "bare", env: Record<string, string>): Promise<{ port: number; pid: number; stop: () => Promise<void> }> {
  // Server logs (the gateway's request lines, its first-start banner) are not ours to print.
  const child = spawnTs("server.ts", [kind], { env, stdio: ["ignore", "ignore", "inherit", "ipc"] });
  try {
    const { port } = await firstMessage<{ port: number }>(child);
    return { port, pid: child.pid!, stop: () => stopChild(child) };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/**
 * Rounds of load, each server in turn: a machine whose speed drifts during the run affects both
 * alike. Many short rounds, not a few long ones: on this kind of host one round's ratio ranged
 * from 0.44 to 0.88 within a run, so the median of 4 moved by a tenth from one run to the next
 * (0.52 to 0.76); the median of 10 rounds of 2 s, each pair 2 s apart, by a twentieth.
 */
const ROUNDS = 10;

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

    const warmups = { gateway: await warmUp(gateway, credentials, scale), bare: await warmUp(bare, credentials, scale) };
    const seconds = Math.max(1, Math.round(scale.loadSeconds / 5));
    const rounds: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Which goes first alternates, so neither always follows the other's load.
      if (i % 2 === 0) {
        const g = await load(gateway, credentials, seconds);
        rounds.push({ gateway: g, bare: await load(bare, credentials, seconds) });
      } else {
        const b = await load(bare, credentials, seconds);
        rounds.push({ gateway: await load(gateway, credentials, seconds), bare: b });
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
    const cpu = (of: (r: Round) => number | null) => {
      const values = rounds.map(of);
      return values.every((v): v is number => v !== null) ? `${median(values).toFixed(0)} µs` : "not measured";
    };
    const warmed = (w: { seconds: number; settled: boolean | null }) =>
      `${w.seconds} s${w.settled === false ? " (still compiling when measured)" : w.settled === null ? " (fixed: no /proc)" : ""}`;
    const errors = (of: (r: Round) => Load) => rounds.reduce((sum, r) => sum + of(r).errors, 0);
    const total = (of: (r: Round) => Load) => rounds.reduce((sum, r) => sum + of(r).total, 0);
    const unanswered = (of: (r: Round) => Load) =>
      errors(of) ? `, ${errors(of)} of ${formatInt(total(of))} requests unanswered within 10 s` : "";
    const how =
      `signed GET ${PATH} (demo data, PGlite on a temp dir) vs a bare Hono route with the same constant body; @hono/node-server in a child process each; ` +
      `autocannon, ${CONNECTIONS} connections, fresh signature per request; each warmed up in loads of ${scale.warmupSeconds} s until its threads other than the main one took under ${SETTLED_SHARE * 100} % of its CPU in one (V8 compiling the hot code; at most ${scale.warmupMaxSeconds} s), then ${ROUNDS} rounds of ${seconds} s on each server in turn (alternating which goes first); the median of the rounds' ratios; ` +
      `CPU per answer: the server's from /proc/<pid>/stat (user + system), the load generator's (the bench process: autocannon and the signing) from process.cpuUsage()`;
    return [
      {
        what: "gateway throughput",
        how,
        measured: `${formatInt(gatewayRps)} req/s vs ${formatInt(bareRps)} req/s (medians) = ${ratio.toFixed(2)} of the bare route (rounds ${ratios.map((r) => r.toFixed(2)).join(", ")}); ` +
          `CPU per answer (medians): gateway ${cpu((r) => r.gateway.serverCpuUs)}, bare route ${cpu((r) => r.bare.serverCpuUs)}, ` +
          `load generator ${cpu((r) => r.gateway.clientCpuUs)} / ${cpu((r) => r.bare.clientCpuUs)}; warm-up ${warmed(warmups.gateway)} / ${warmed(warmups.bare)}`,
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
