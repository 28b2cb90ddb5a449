import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLogger } from "@/lib/gateway/logger";
import { startGateway, type Gateway } from "@/lib/gateway/runtime";
import type { DemoCredentials } from "@/lib/gateway/seed";
import type { StoreOptions } from "@/lib/gateway/store/client";
import { signedHeaders } from "@/lib/signing";

export interface BenchGateway {
  gateway: Gateway;
  demo: DemoCredentials;
  dataDir: string;
  /** A GET signed as the demo owner, through the app's fetch handler. */
  get(pathAndQuery: string): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The gateway in this process, with the demo organization: on PGlite in a fresh temp data dir,
 * or on the PostgreSQL server at `postgresUrl` (the temp dir then holds only the key files).
 */
export async function benchGateway(name: string, postgresUrl?: string): Promise<BenchGateway> {
  const dir = mkdtempSync(path.join(tmpdir(), `stratus-bench-${name}-`));
  const dataDir = path.join(dir, "data");
  const store: StoreOptions = postgresUrl ? { kind: "postgres", url: postgresUrl } : { kind: "pglite", dataDir };
  // The first start prints the demo keys at info level: keep them off the terminal.
  const gateway = await startGateway({ dataDir, store, seed: true, logger: createLogger("silent") });
  const demo = JSON.parse(readFileSync(path.join(dataDir, "demo-credentials.json"), "utf8")) as DemoCredentials;
  const credentials = { accessKeyId: demo.owner.access_key_id, secretKey: demo.owner.secret_key };
  return {
    gateway,
    demo,
    dataDir,
    get: async (pathAndQuery) => {
      const url = new URL(`http://gateway.bench${pathAndQuery}`);
      return gateway.app.fetch(new Request(url, { headers: signedHeaders(credentials, { method: "GET", url }) }));
    },
    close: async () => {
      await gateway.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function progressLine(label: string): (done: number) => void {
  const started = Date.now();
  return (done) => process.stderr.write(`  ${label}: ${done.toLocaleString("en-US")} rows (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
}
