import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/lib/env";
import { demoState } from "./demo";

const GATEWAY_KEY = Symbol.for("stratus.embeddedGateway");
const READY_KEY = Symbol.for("stratus.embeddedGatewayReady");
const FAILED_KEY = Symbol.for("stratus.embeddedGatewayFailed");
type G = typeof globalThis & { [GATEWAY_KEY]?: Promise<unknown>; [READY_KEY]?: boolean; [FAILED_KEY]?: unknown };
const g = globalThis as G;

let dataDir: string;
const saved = { ...process.env };
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "stratus-demo-state-"));
  Object.assign(process.env, { STRATUS_DATA_DIR: dataDir, STRATUS_DEMO: "1", STRATUS_LOG_LEVEL: "silent" });
  delete process.env.CLOUD_API_URL;
  resetEnvCache();
});
afterEach(() => {
  delete g[GATEWAY_KEY];
  delete g[READY_KEY];
  delete g[FAILED_KEY];
  process.env = { ...saved };
  resetEnvCache();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the demo sign-in's state", () => {
  it("is 'preparing' at once while the embedded gateway still writes the demo data, without waiting for it", async () => {
    // A start that has not finished (the seed of a fresh data dir).
    g[GATEWAY_KEY] = new Promise(() => {});
    const started = Date.now();
    expect(await demoState()).toBe("preparing");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("is 'available' once the gateway is up and its demo credentials are written", async () => {
    g[GATEWAY_KEY] = Promise.resolve({});
    writeFileSync(path.join(dataDir, "demo-credentials.json"), "{}");
    // The first look notices the finished start; the next one reads it.
    await demoState();
    await new Promise((r) => setTimeout(r, 0));
    expect(await demoState()).toBe("available");
  });

  it("is 'unavailable' when the demo is turned off", async () => {
    process.env.STRATUS_DEMO = "0";
    resetEnvCache();
    g[GATEWAY_KEY] = new Promise(() => {});
    expect(await demoState()).toBe("unavailable");
  });

  it("is 'unavailable' once the embedded gateway failed to start, which is not started again at every look, and says why once", async () => {
    // The data dir cannot be made: a file stands where it would be.
    const blocked = path.join(dataDir, "blocked");
    writeFileSync(blocked, "");
    process.env.STRATUS_DATA_DIR = path.join(blocked, "data");
    resetEnvCache();
    const logged: string[] = [];
    const error = console.error;
    console.error = (...args: unknown[]) => void logged.push(args.map(String).join(" "));
    try {
      expect(await demoState()).toBe("preparing");
      // The start fails (the state's own start, awaited here through the global it set).
      await (g[GATEWAY_KEY] ?? Promise.resolve()).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 0));
      expect(g[GATEWAY_KEY]).toBeUndefined();
      for (let look = 0; look < 3; look++) {
        expect(await demoState()).toBe("unavailable");
        expect(g[GATEWAY_KEY]).toBeUndefined();
      }
    } finally {
      console.error = error;
    }
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^the embedded gateway did not start: /);
    expect(logged[0]).not.toMatch(/\n\s+at /);
  });
});
