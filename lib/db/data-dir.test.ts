import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lockDataDir, removeIfStill } from "./data-dir";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "stratus-lock-"));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", ""]);
    child.on("error", reject);
    child.on("exit", () => resolve(child.pid!));
  });
}

/**
 * Processes that each say when they are ready, wait for a shared signal (a file appearing, so that they all try at
 * once), try to lock `dir`, hold what they got for `holdMs`, and print `held <pid>` or the error.
 */
async function contenders(count: number, dir: string, holdMs: number): Promise<string[]> {
  const go = path.join(dir, "..", `${path.basename(dir)}.go`);
  const script = `
    const { existsSync } = await import("node:fs");
    const { lockDataDir } = await import(${JSON.stringify(path.resolve("lib/db/data-dir.ts"))});
    console.log("ready");
    while (!existsSync(${JSON.stringify(go)})) {}
    try {
      const release = lockDataDir(${JSON.stringify(dir)});
      console.log("held " + process.pid);
      setTimeout(release, ${holdMs});
    } catch (error) {
      console.log(error.message);
    }`;
  let ready = 0;
  const outcomes = Array.from(
    { length: count },
    () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: process.cwd() });
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          if (/^ready$/m.test(d.toString()) && ++ready === count) writeFileSync(go, "");
        });
        child.stderr.on("data", (d: Buffer) => (out += d.toString()));
        child.on("error", reject);
        child.on("close", () => resolve(out.replace(/^ready\n/, "").trim()));
      }),
  );
  try {
    return await Promise.all(outcomes);
  } finally {
    rmSync(go, { force: true });
  }
}

describe("the data dir lock", () => {
  it("leaves behind nothing but the lock, and not even that once released", () => {
    const dir = tempDir();
    const release = lockDataDir(dir);
    expect(readdirSync(dir)).toEqual(["stratus.lock"]);
    expect(readFileSync(path.join(dir, "stratus.lock"), "utf8")).toBe(String(process.pid));
    expect(() => lockDataDir(dir)).toThrow(/already open in this process/);
    release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("removes only the stale lock read, under the takeover guard, and waits while another process holds the guard", async () => {
    const dir = tempDir();
    const lock = path.join(dir, "stratus.lock");
    const mine = path.join(dir, "mine");
    writeFileSync(mine, String(process.pid));
    const stale = String(await deadPid());
    // This process read the stale pid; before it removed the file, another process removed it and locked the dir.
    writeFileSync(lock, String(process.ppid));
    expect(removeIfStill(lock, stale, mine)).toBe(true);
    expect(readFileSync(lock, "utf8")).toBe(String(process.ppid));
    // The stale one itself is removed, and the guard released.
    writeFileSync(lock, stale);
    expect(removeIfStill(lock, stale, mine)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(["mine"]);
    // A live process's guard: nothing is removed, and this process is told to wait.
    writeFileSync(lock, stale);
    writeFileSync(`${lock}.takeover`, String(process.ppid));
    expect(removeIfStill(lock, stale, mine)).toBe(false);
    expect(readFileSync(lock, "utf8")).toBe(stale);
    // A guard whose process is gone is cleared; the next try takes over.
    writeFileSync(`${lock}.takeover`, stale);
    expect(removeIfStill(lock, stale, mine)).toBe(false);
    expect(removeIfStill(lock, stale, mine)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(["mine"]);
  });

  it("is taken by exactly one of several processes that find the same stale lock at once", { timeout: 60_000 }, async () => {
    for (let round = 0; round < 3; round++) {
      const dir = tempDir();
      writeFileSync(path.join(dir, "stratus.lock"), String(await deadPid()));
      const outcomes = await contenders(5, dir, 1_000);
      const holders = outcomes.filter((o) => o.startsWith("held "));
      expect(holders, outcomes.join("\n")).toHaveLength(1);
      const winner = holders[0]!.slice("held ".length);
      expect(outcomes.filter((o) => o === holders[0] || o.includes(`in use by process ${winner}`)), outcomes.join("\n")).toHaveLength(5);
      expect(readdirSync(dir)).toEqual([]);
    }
  });
});
