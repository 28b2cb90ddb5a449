import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Formation, query, until, type NodeInfo } from "./formation";
import { admin, gatewayEnv, startGateway, stopGateway, type GatewayProcess } from "./gateway-process";
import { REPLAY_MESSAGE } from "@/lib/gateway/middleware/replay";
import { call, runLoad, type Credentials, type Outcome, type RetriedWrite } from "./load";

/**
 * A primary failover survived: two standalone gateways over a pg_auto_failover
 * formation (monitor, primary, synchronous secondary) named by a multi-host URL
 * with target_session_attrs=read-write; a load of signed writes and reads runs while
 * the primary node is killed (SIGKILL of its postgres and its keeper).
 *
 * Ports 26100-26111 on 127.0.0.1 only: the monitor, the two nodes, the two gateways. Below Linux's
 * ephemeral range (32768-60999): a port in it can be taken at any moment as the local end of an
 * outgoing connection (a keeper's to the monitor, a standby's to its primary), and once was, so a
 * gateway's listen failed with EADDRINUSE.
 */

const BASE_PORT = 26_100;
const GATEWAY_PORTS = [BASE_PORT + 10, BASE_PORT + 11];
/** The gateways' deadline to the first byte (STRATUS_REQUEST_TIMEOUT_SECONDS); the client waits a little longer. */
const DEADLINE_S = 10;
const GIVE_UP_MS = DEADLINE_S * 1000 + 3_000;
/** The issue's bound: both gateways serve writes again this soon after the kill, without a restart. */
const SERVE_AGAIN_WITHIN_MS = 30_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let formation: Formation | undefined;
let dataDir: string | undefined;
const gateways: GatewayProcess[] = [];
let env: NodeJS.ProcessEnv;
let organizationId: string;
let loadKey: Credentials;
let revokedLater: Credentials;

beforeAll(async () => {
  formation = new Formation(BASE_PORT);
  try {
    await formation.start();
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${formation.log("monitor")}\n${formation.log("node1")}\n${formation.log("node2")}`);
  }
  dataDir = mkdtempSync(path.join(tmpdir(), "stratus-failover-gw-"));
  env = gatewayEnv(formation.databaseUrl(), dataDir, randomBytes(32).toString("hex"), { STRATUS_REQUEST_TIMEOUT_SECONDS: String(DEADLINE_S) });
  // One migrates, then the other starts on the migrated store.
  for (const [i, port] of GATEWAY_PORTS.entries()) gateways.push(await startGateway(`g${i + 1}`, port, env));

  const email = "failover@example.com";
  await admin(env, ["create-user", "--email", email, "--name", "Failover"]);
  organizationId = (await admin<{ organization_id: string }>(env, ["create-org", "--name", "Failover", "--owner", email])).organization_id;
  const key = async (name: string) => {
    const k = await admin<{ access_key_id: string; secret_key: string }>(env, ["create-key", "--user", email, "--name", name]);
    return { accessKeyId: k.access_key_id, secretKey: k.secret_key };
  };
  loadKey = await key("load");
  revokedLater = await key("revoked-after-failover");
}, 300_000);

afterAll(async () => {
  await Promise.all(gateways.map((g) => stopGateway(g)));
  await formation?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

function describeOutcome(o: Outcome): string {
  return `${o.gateway} ${o.kind} ${o.status}${o.error ? ` (${o.error})` : ""} at +${o.start}ms`;
}

describe("a primary failover (pg_auto_failover)", () => {
  it("loses and duplicates no acknowledged write; answers 503 + Retry-After meanwhile and serves again without a restart", async () => {
    const f = formation!;
    const [oldPrimary, newPrimary] = f.nodes as [NodeInfo, NodeInfo];
    expect((await f.writable())?.name, await f.describe()).toBe(oldPrimary.name);
    // Commits wait for the standby: what was acknowledged is on both nodes.
    const [sync] = await query<{ synchronous_standby_names: string }>(oldPrimary.port, f.database, "show synchronous_standby_names");
    expect(sync?.synchronous_standby_names).not.toBe("");
    const pids = gateways.map((g) => g.child.pid);

    const out: Outcome[] = [];
    const retried: RetriedWrite[] = [];
    let stopped = false;
    const load = runLoad({
      retried,
      targets: gateways,
      credentials: loadKey,
      organizationId,
      workersPerTarget: 3,
      giveUpMs: GIVE_UP_MS,
      maxCallsPerWorker: 2_000,
      stopped: () => stopped,
      out,
    });
    const writesOk = () => out.filter((o) => (o.kind === "create" || o.kind === "rename") && o.status === 200);

    let killAt = 0;
    let promotedAt = 0;
    // The start of the last look at the nodes that found none taking writes. After the kill the only change is
    // towards writable, so a gateway's "ready" that ended before this moment was certainly untrue.
    let lastSeenUnwritableAt = 0;
    try {
      await until("writes before the kill", async () => writesOk().length >= 30, 60_000, 100);
      killAt = Date.now();
      f.kill(oldPrimary);

      // The new primary, as the nodes themselves say (not the gateways).
      await until(
        "the secondary's promotion",
        async () => {
          const lookedAt = Date.now();
          const writable = await f.writable();
          if (writable === null) lastSeenUnwritableAt = lookedAt;
          return writable?.name === newPrimary.name;
        },
        60_000,
        100,
      );
      promotedAt = Date.now();
      // Both gateways write again, then the load runs a little longer on the new primary.
      const servedAgain = () => gateways.every((g) => writesOk().some((o) => o.gateway === g.name && o.start > promotedAt));
      await until("both gateways to serve writes again", async () => servedAgain(), SERVE_AGAIN_WITHIN_MS + 10_000, 100).catch(() => undefined);
      await sleep(3_000);
    } finally {
      stopped = true;
      await load;
    }

    const t0 = killAt;
    const rel = (o: Outcome) => ({ ...o, start: o.start - t0, end: o.end - t0 });
    const calls = out.filter((o) => o.kind !== "readyz");
    const ready = out.filter((o) => o.kind === "readyz");

    // Never a 500, never a hang past the deadline, never anything but 200 or 503.
    const wrong = out.filter((o) => o.status !== 200 && o.status !== 503).map((o) => describeOutcome(rel(o)));
    expect(wrong.slice(0, 20), gateways.map((g) => `${g.name}: ${g.stderr().slice(-3000)}`).join("\n")).toEqual([]);
    // Every 503 says when to come back.
    expect(out.filter((o) => o.status === 503 && !/^\d+$/.test(o.retryAfter ?? "")).map((o) => describeOutcome(rel(o)))).toEqual([]);

    const report: string[] = [`promotion ${promotedAt - killAt} ms after the kill`];
    for (const g of gateways) {
      const mine = calls.filter((o) => o.gateway === g.name);
      // The switch was seen (a test that saw no outage tested nothing)...
      expect(mine.filter((o) => o.status === 503 && o.start >= killAt).length, `${g.name} answered no 503 during the switch`).toBeGreaterThan(0);
      // ...and the gateway, never restarted, writes again within the bound.
      const firstWriteAfter = writesOk().find((o) => o.gateway === g.name && o.start > killAt && calls.some((c) => c.gateway === g.name && c.status === 503 && c.start >= killAt && c.start < o.start));
      expect(firstWriteAfter, `${g.name} never served a write again`).toBeDefined();
      expect(firstWriteAfter!.end - killAt).toBeLessThanOrEqual(SERVE_AGAIN_WITHIN_MS);
      expect(g.child.exitCode).toBeNull();
      report.push(`${g.name}: writes again ${firstWriteAfter!.end - killAt} ms after the kill, ${mine.filter((o) => o.status === 503).length} answers 503`);

      // /readyz tells the truth: never "ready" while no node took writes (as the nodes themselves said), "unavailable"
      // during the switch, ready after. (The promotion is seen by polling, so a gateway may rightly say "ready" a
      // little before the test notices: only an answer that ended before a look that found no writable node lied.)
      const myReady = ready.filter((o) => o.gateway === g.name);
      const lies = myReady.filter((o) => o.status === 200 && o.start > killAt + 200 && o.end < lastSeenUnwritableAt).map((o) => describeOutcome(rel(o)));
      expect(lies).toEqual([]);
      expect(myReady.some((o) => o.status === 503 && o.start >= killAt)).toBe(true);
      expect(myReady.at(-1)?.status).toBe(200);
    }
    expect(gateways.map((g) => g.child.pid)).toEqual(pids);
    console.log(`failover: ${report.join("; ")}; ${calls.length} calls, ${writesOk().length} acknowledged writes`);

    // Every acknowledged write is on the new primary, once.
    const projects = await query<{ id: string; name: string }>(newPrimary.port, f.database, "select id, name from projects where organization_id = $1", [organizationId]);
    const byId = new Map(projects.map((p) => [p.id, p.name]));
    const audited = await query<{ action: string; id: string; n: number }>(
      newPrimary.port,
      f.database,
      "select action, target_ids[1] as id, count(*)::int as n from audit_log where organization_id = $1 and result = 'OK' group by 1, 2",
      [organizationId],
    );
    const auditCount = new Map(audited.map((a) => [`${a.action}:${a.id}`, a.n]));
    const renameTried = new Set(calls.filter((o) => o.kind === "rename").map((o) => o.id));
    const renamedOk = new Map(calls.filter((o) => o.kind === "rename" && o.status === 200).map((o) => [o.id, o.name]));
    const problems: string[] = [];
    for (const created of calls.filter((o) => o.kind === "create" && o.status === 200)) {
      const name = byId.get(created.id!);
      if (name === undefined) problems.push(`lost: project ${created.name}`);
      else if (renamedOk.has(created.id) ? name !== renamedOk.get(created.id) : !renameTried.has(created.id) && name !== created.name) {
        problems.push(`project ${created.name} is named ${name}`);
      }
      if (auditCount.get(`Create:${created.id}`) !== 1) problems.push(`project ${created.name}: ${auditCount.get(`Create:${created.id}`) ?? 0} audit entries of its creation`);
    }
    for (const id of renamedOk.keys()) {
      if (auditCount.get(`Update:${id}`) !== 1) problems.push(`project ${id}: ${auditCount.get(`Update:${id}`) ?? 0} audit entries of its rename`);
    }
    const names = projects.map((p) => p.name);
    problems.push(...names.filter((n, i) => names.indexOf(n) !== i).map((n) => `duplicated: ${n}`));

    // The client that retries as the Terraform provider does (the same signature and body after a 503 or no
    // answer): each of its writes is made once. A retry is taken while no change was made under the signature,
    // and refused as a replay only after an earlier attempt's change committed.
    const ids = new Map(projects.map((p) => [p.name, p.id]));
    for (const w of retried) {
      const final = w.statuses.at(-1);
      const id = ids.get(w.name);
      const attempts = `${w.gateway} ${w.name}: ${w.statuses.join(" → ")}`;
      if (final === 200 && !id) problems.push(`lost: ${attempts}`);
      else if (final === 401 && !(w.message === REPLAY_MESSAGE && w.statuses.length > 1 && id)) problems.push(`refused: ${attempts} (${w.message})`);
      else if (final !== 200 && final !== 401) problems.push(`answered: ${attempts}`);
      if (id && auditCount.get(`Create:${id}`) !== 1) problems.push(`${attempts}: ${auditCount.get(`Create:${id}`) ?? 0} audit entries of its creation`);
    }
    expect(problems).toEqual([]);
    const takenAfterRetry = retried.filter((w) => w.statuses.length > 1 && w.statuses.at(-1) === 200);
    console.log(`failover: retrying client: ${retried.length} writes, ${takenAfterRetry.length} made by a retry with the first attempt's signature`);
    expect(takenAfterRetry.length, retried.map((w) => w.statuses.join("→")).join(", ")).toBeGreaterThan(0);
  }, 240_000);

  it("hears change notices again after the failover: a key revoked then is refused at once by both gateways", async () => {
    // The listeners are back on the new primary, so the read cache is on again.
    for (const g of gateways) {
      await until(
        `${g.name}'s change listener`,
        async () => {
          const res = await fetch(`http://127.0.0.1:${g.port}/readyz`, { signal: AbortSignal.timeout(GIVE_UP_MS) });
          return res.status === 200 && ((await res.json()) as { change_notices?: string }).change_notices === "listening";
        },
        30_000,
      );
    }
    const list = `/organizations/projects?org_id=${organizationId}&skip_loading_project_resources=true`;
    // Both gateways now hold the key in their caches.
    for (const g of gateways) expect((await call(g, revokedLater, "GET", list, undefined, GIVE_UP_MS)).status).toBe(200);
    await admin(env, ["revoke-key", revokedLater.accessKeyId]);
    for (const g of gateways) {
      await until(`${g.name} to refuse the revoked key`, async () => (await call(g, revokedLater, "GET", list, undefined, GIVE_UP_MS)).status === 401, 3_000, 50);
      expect((await call(g, loadKey, "GET", list, undefined, GIVE_UP_MS)).status).toBe(200);
    }
  }, 60_000);
});
