import { execFile, spawn, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";

/** Standalone gateways (`npm run gateway`) and admin commands, as child processes on loopback. */

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface GatewayProcess {
  name: string;
  port: number;
  child: ChildProcess;
  stderr(): string;
}

export function gatewayEnv(databaseUrl: string, dataDir: string, masterKey: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: databaseUrl,
    STRATUS_DATA_DIR: dataDir,
    STRATUS_MASTER_KEY: masterKey,
    STRATUS_SEED_DEMO: "0",
    STRATUS_LOG_LEVEL: "warn",
    HOST: "127.0.0.1",
    ...extra,
  };
}

export async function startGateway(name: string, port: number, env: NodeJS.ProcessEnv): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "lib/gateway/cli.ts"], {
    cwd: process.cwd(),
    env: { ...env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-50_000)));
  const gateway = { name, port, child, stderr: () => stderr };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`gateway ${name} exited early: ${stderr}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(5_000) });
      if (res.ok) return gateway;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  child.kill("SIGKILL");
  throw new Error(`gateway ${name} did not become ready: ${stderr}`);
}

export async function stopGateway(gateway: GatewayProcess | undefined): Promise<void> {
  const child = gateway?.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGTERM");
  await Promise.race([exited, sleep(12_000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}

/** `npm run gateway -- <command> …`, returning its JSON output. */
export async function admin<T>(env: NodeJS.ProcessEnv, args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", "lib/gateway/cli.ts", ...args], { cwd: process.cwd(), env, timeout: 60_000 });
  return JSON.parse(stdout) as T;
}
