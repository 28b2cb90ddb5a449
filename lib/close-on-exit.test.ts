import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { closeAll, closeOnExit } from "./close-on-exit";

describe("closing the stores as the server stops", () => {
  it("closes each store once, logs one that fails or hangs, and does not wait on a hung one past the cap", async () => {
    const closed: string[] = [];
    closeOnExit("a", async () => void closed.push("a"));
    closeOnExit("b", async () => {
      throw new Error("the disk went away");
    });
    closeOnExit("c", () => new Promise<void>(() => undefined));
    const lines: string[] = [];
    const started = Date.now();
    expect(await closeAll((line) => lines.push(line), 200)).toEqual(["a"]);
    // The last registered first.
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(["c did not close in time", "b did not close", "a closed"]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(closed).toEqual(["a"]);
    expect(lines.join("\n")).toContain("a closed");
    expect(lines.join("\n")).toContain("b did not close");
    expect(lines.join("\n")).toContain("the disk went away");
    expect(lines.join("\n")).toContain("c did not close in time");
    // Each once: nothing is left to close.
    expect(await closeAll(() => undefined, 200)).toEqual([]);
  });

  it("holds the exit a signal handler makes (as next start's) until the stores are closed", async () => {
    // A process as the console's server: a handler of its own that exits on SIGTERM, and a store that takes a while to close.
    const script = `
      import { closeOnExit, installCloseOnExit } from "./lib/close-on-exit.ts";
      process.on("SIGTERM", () => setTimeout(() => process.exit(143), 10));
      installCloseOnExit();
      closeOnExit("the store", () => new Promise((resolve) => setTimeout(() => { process.stdout.write("store closed\\n"); resolve(); }, 300)));
      process.stdout.write("ready\\n");
      setInterval(() => undefined, 1000);
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: process.cwd() });
    let output = "";
    const ready = new Promise<void>((resolve) =>
      child.stdout.on("data", (d: Buffer) => {
        output += d.toString();
        if (output.includes("ready")) resolve();
      }),
    );
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await ready;
    child.kill("SIGTERM");
    expect(await exited, output).toBe(143);
    expect(output).toContain("store closed");
    expect(output).toContain("the store closed");
  }, 30_000);
});
