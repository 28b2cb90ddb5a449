import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "@/lib/gateway/store/client";

const root = mkdtempSync(path.join(tmpdir(), "stratus-open-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every path under dir whose mode lets anyone but the owner in. */
function openToOthers(dir: string): string[] {
  const found = (statSync(dir).mode & 0o077) !== 0 ? [dir] : [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const mode = statSync(full).mode & 0o777;
    if (entry.isDirectory() ? mode !== 0o700 : mode !== 0o600) found.push(`${full} ${mode.toString(8)}`);
  }
  return found;
}

describe("the PGlite data dir", { timeout: 120_000 }, () => {
  it("is the owner's alone: the dir 0700, every file 0600, while open and after", async () => {
    const dataDir = path.join(root, "fresh");
    const store = await openStore({ kind: "pglite", dataDir });
    try {
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(openToOthers(dataDir)).toEqual([]);
    } finally {
      await store.close();
    }
    expect(openToOthers(dataDir)).toEqual([]);
  });

  it("is put right when an earlier version left it open", async () => {
    const dataDir = path.join(root, "fresh");
    chmodSync(dataDir, 0o777);
    for (const file of [path.join("pgdata", "left-over"), "master.key"]) {
      writeFileSync(path.join(dataDir, file), "x", { mode: 0o666 });
      chmodSync(path.join(dataDir, file), 0o666);
    }
    const store = await openStore({ kind: "pglite", dataDir });
    try {
      expect(openToOthers(dataDir)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("leaves alone what is not Stratus's in a data dir set to a directory holding other things (an executable stays one)", async () => {
    const dataDir = path.join(root, "shared");
    mkdirSync(path.join(dataDir, "bin"), { recursive: true });
    writeFileSync(path.join(dataDir, "bin", "tool"), "#!/bin/sh\n", { mode: 0o755 });
    writeFileSync(path.join(dataDir, "notes.txt"), "x", { mode: 0o644 });
    chmodSync(path.join(dataDir, "bin", "tool"), 0o755);
    chmodSync(path.join(dataDir, "notes.txt"), 0o644);
    const store = await openStore({ kind: "pglite", dataDir });
    await store.close();
    expect(statSync(path.join(dataDir, "bin", "tool")).mode & 0o777).toBe(0o755);
    expect(statSync(path.join(dataDir, "notes.txt")).mode & 0o777).toBe(0o644);
    expect(statSync(path.join(dataDir, "bin")).mode & 0o777).not.toBe(0o700);
    // What is Stratus's there is still the owner's alone.
    expect(openToOthers(path.join(dataDir, "pgdata"))).toEqual([]);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });
});
