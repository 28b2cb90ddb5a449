import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { E2E_AUTH_SECRET } from "./env";
import { freePort } from "@/scripts/free-port";

/**
 * The console's server stopped as a process manager stops it (SIGTERM): `next start` of the same build on a data dir
 * of its own, with its embedded gateway. Its PGlite store is closed before the process exits (lib/close-on-exit.ts):
 * the lock it holds is released, and the next start opens the data dir at once.
 */
test("stopped with SIGTERM, the console's server closes its store before it exits", async () => {
  test.setTimeout(180_000);
  const dataDir = mkdtempSync(path.join(tmpdir(), "stratus-shutdown-"));
  try {
    for (const round of [1, 2]) {
      const port = await freePort();
      // Its own embedded store on its own data dir, whatever the environment says of others; Next.js's signal handling.
      const { DATABASE_URL, CLOUD_API_URL, NEXT_MANUAL_SIG_HANDLE, STRATUS_MASTER_KEY, ...inherited } = process.env;
      void [DATABASE_URL, CLOUD_API_URL, NEXT_MANUAL_SIG_HANDLE, STRATUS_MASTER_KEY];
      const child = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"], {
        cwd: process.cwd(),
        env: {
          ...inherited,
          STRATUS_DATA_DIR: dataDir,
          AUTH_SECRET: E2E_AUTH_SECRET,
          NEXTAUTH_SECRET: E2E_AUTH_SECRET,
          NEXTAUTH_URL: `http://127.0.0.1:${port}`,
          STRATUS_SEED_DEMO: "0",
          NEXT_TELEMETRY_DISABLED: "1",
        },
      });
      let output = "";
      child.stdout.on("data", (d: Buffer) => (output += d.toString()));
      child.stderr.on("data", (d: Buffer) => (output += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
      await expect
        .poll(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.status ?? 0, { timeout: 90_000, message: `round ${round}: ${output}` })
        .toBe(200);
      // The embedded gateway answers (an unsigned call: 401), its store open and held.
      expect((await fetch(`http://127.0.0.1:${port}/v1/organizations/entities`)).status, output).toBe(401);
      expect(existsSync(path.join(dataDir, "stratus.lock"))).toBe(true);

      child.kill("SIGTERM");
      expect(await exited, output).toBe(143);
      expect(output).toContain("the embedded gateway's store closed");
      expect(existsSync(path.join(dataDir, "stratus.lock")), output).toBe(false);
      expect(output).not.toMatch(/is in use by process|Could not lock|did not start|did not close/i);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
