import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dataDirExists, isEmpty, openStore, type Store } from "./client";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "stratus-store-"));
  dirs.push(dir);
  return dir;
};
const open: Store[] = [];
afterAll(async () => {
  for (const store of open) await store.close().catch(() => undefined);
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

async function openPglite(dataDir: string): Promise<Store> {
  const store = await openStore({ kind: "pglite", dataDir });
  open.push(store);
  return store;
}

async function close(store: Store): Promise<void> {
  await store.close();
  open.splice(open.indexOf(store), 1);
}

/** The pid of a process that has exited. */
function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", ""]);
    child.on("error", reject);
    child.on("exit", () => resolve(child.pid!));
  });
}

/** Runs the command-line tool against a data dir: a second process opening the store. */
function cliOn(dataDir: string): Promise<{ code: number | null; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, STRATUS_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "lib/gateway/cli.ts", "list-keys"], { cwd: process.cwd(), env });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

// Each case creates an on-disk PGlite cluster, which takes long on a busy machine.
describe("PGlite data dir lock", { timeout: 180_000 }, () => {
  it("locks the data dir with this process's pid, and releases it on close", async () => {
    const dir = tempDir();
    expect(dataDirExists(dir)).toBe(false);
    const store = await openPglite(dir);
    const lock = path.join(dir, "stratus.lock");
    expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
    expect(dataDirExists(dir)).toBe(true);
    expect(await isEmpty(store.db)).toBe(true);
    await close(store);
    expect(existsSync(lock)).toBe(false);

    const again = await openPglite(dir);
    expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
    await close(again);
  });

  it("refuses a second open in the same process with a clear message, and keeps the first usable", async () => {
    const dir = tempDir();
    const first = await openPglite(dir);
    await expect(openStore({ kind: "pglite", dataDir: dir })).rejects.toThrow(/already open in this process/);
    // The same dir under another spelling is the same dir.
    await expect(openStore({ kind: "pglite", dataDir: path.join(dir, "..", path.basename(dir)) })).rejects.toThrow(/already open/);
    expect(await isEmpty(first.db)).toBe(true);
    expect(readFileSync(path.join(dir, "stratus.lock"), "utf8")).toBe(String(process.pid));
    await close(first);
    await close(await openPglite(dir));
  });

  it("refuses a second process with a clear message naming the holder", async () => {
    const dir = tempDir();
    const store = await openPglite(dir);
    const second = await cliOn(dir);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`is in use by process ${process.pid}`);
    expect(second.stderr).toContain("STRATUS_DATA_DIR");
    expect(readFileSync(path.join(dir, "stratus.lock"), "utf8")).toBe(String(process.pid));
    expect(await isEmpty(store.db)).toBe(true);
    await close(store);
  });

  it("refuses while another live process holds the lock file", async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "stratus.lock"), String(process.ppid));
    await expect(openStore({ kind: "pglite", dataDir: dir })).rejects.toThrow(new RegExp(`in use by process ${process.ppid}`));
    expect(readFileSync(path.join(dir, "stratus.lock"), "utf8")).toBe(String(process.ppid));
  });

  it.each([
    ["a process that has exited", async () => String(await deadPid())],
    ["an earlier process with this pid (a restarted container)", async () => String(process.pid)],
    ["unreadable content", async () => "not a pid"],
  ])("takes over a stale lock left by %s", async (_what, content) => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "stratus.lock"), await content());
    const store = await openPglite(dir);
    expect(readFileSync(path.join(dir, "stratus.lock"), "utf8")).toBe(String(process.pid));
    await close(store);
  });
});
