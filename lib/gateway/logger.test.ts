import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logger";

describe("createLogger", () => {
  it("writes one JSON object per line at or above its level", () => {
    const lines: string[] = [];
    const log = createLogger("info", (l) => lines.push(l));
    log.debug("hidden");
    log.info("request", { status: 200 });
    log.error("boom", { request_id: "r1" });
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: "info", msg: "request", status: 200 }),
      expect.objectContaining({ level: "error", msg: "boom", request_id: "r1" }),
    ]);
  });

  it("batches standard output, in order, and writes what is pending before the process exits", () => {
    const script = `
      import { createLogger } from ${JSON.stringify(path.resolve("lib/gateway/logger.ts"))};
      const log = createLogger("info");
      for (let i = 0; i < 5; i++) log.info("line", { i });
      setImmediate(() => { log.info("late", { i: 5 }); process.exit(0); });
    `;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as { i: number });
    expect(lines.map((l) => l.i)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe("log lines", () => {
  it("are valid JSON whatever the fields hold, with the fixed keys first", () => {
    const lines: string[] = [];
    const log = createLogger("debug", (l) => lines.push(l));
    log.warn('quote " and \\ backslash', { path: '/a"b', nested: { x: [1, "two"] }, missing: undefined });
    log.info("no fields");
    const [first, second] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.keys(first!).slice(0, 3)).toEqual(["time", "level", "msg"]);
    expect(first).toMatchObject({ level: "warn", msg: 'quote " and \\ backslash', path: '/a"b', nested: { x: [1, "two"] } });
    expect(second).toMatchObject({ level: "info", msg: "no fields" });
    expect(Object.keys(second!)).toEqual(["time", "level", "msg"]);
  });
});
