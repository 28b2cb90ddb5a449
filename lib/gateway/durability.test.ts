import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { signedHeaders } from "@/lib/signing";
import { freshStoreOptions, opPath } from "./testing";

/**
 * Kills the standalone gateway with SIGKILL in the middle of a stream of writes,
 * restarts it on the same store, and checks every write that got a 2xx is there.
 */

interface Running {
  child: ChildProcess;
  port: number;
}

let nextPort = 18_400 + Math.floor(Math.random() * 500);

async function start(dataDir: string, databaseUrl?: string): Promise<Running> {
  const port = nextPort++;
  const child = spawn(process.execPath, ["--import", "tsx", "lib/gateway/cli.ts"], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      STRATUS_DATA_DIR: dataDir,
      STRATUS_LOG_LEVEL: "warn",
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`gateway exited early: ${stderr}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) return { child, port };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill("SIGKILL");
  throw new Error(`gateway did not start: ${stderr}`);
}

/** Resolves when the child has exited, including when it already has. */
function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

async function signed(port: number, creds: { access_key_id: string; secret_key: string }, method: string, pathAndQuery: string, body?: unknown) {
  const url = `http://127.0.0.1:${port}/v1${pathAndQuery}`;
  const headers = signedHeaders({ accessKeyId: creds.access_key_id, secretKey: creds.secret_key }, { method, url });
  return fetch(url, {
    method,
    headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
}

async function killMidStream(dataDir: string, databaseUrl?: string) {
  const first = await start(dataDir, databaseUrl);
  const creds = JSON.parse(readFileSync(path.join(dataDir, "demo-credentials.json"), "utf8")) as {
    organization_id: string;
    owner: { access_key_id: string; secret_key: string };
  };
  const acknowledged: string[] = [];
  let stop = false;
  // Several writers at once, so the kill lands while requests are in flight.
  const writer = async (w: number) => {
    for (let i = 0; !stop; i++) {
      const name = `durable-${w}-${i}`;
      try {
        const res = await signed(first.port, creds.owner, "POST", opPath("createProject"), { organization_id: creds.organization_id, name });
        if (res.ok) acknowledged.push(name);
      } catch {
        return; // connection cut by the kill
      }
    }
  };
  const writers = [0, 1, 2, 3].map(writer);
  while (acknowledged.length < 40) await new Promise((r) => setTimeout(r, 20));
  first.child.kill("SIGKILL");
  stop = true;
  await Promise.all(writers);
  await exited(first.child);

  const second = await start(dataDir, databaseUrl);
  try {
    const res = await signed(second.port, creds.owner, "GET", `${opPath("listProjects")}?org_id=${creds.organization_id}&skip_loading_project_resources=true`);
    expect(res.status).toBe(200);
    const names = new Set(((await res.json()) as { items: Array<{ name: string }> }).items.map((p) => p.name));
    const lost = acknowledged.filter((n) => !names.has(n));
    expect(lost).toEqual([]);
    expect(acknowledged.length).toBeGreaterThanOrEqual(40);
  } finally {
    second.child.kill("SIGTERM");
    await exited(second.child);
  }
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("durability across SIGKILL", () => {
  it("keeps every acknowledged write (this run's store: PGlite, or PostgreSQL when TEST_DATABASE_URL is set)", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "stratus-durable-"));
    dirs.push(dataDir);
    const fresh = await freshStoreOptions();
    try {
      await killMidStream(dataDir, fresh.store.kind === "postgres" ? fresh.store.url : undefined);
    } finally {
      await fresh.drop();
    }
  }, 180_000);
});
