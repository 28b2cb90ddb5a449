import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
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
    writeFileSync(path.join(dataDir, "left-over"), "x", { mode: 0o666 });
    chmodSync(path.join(dataDir, "left-over"), 0o666);
    const store = await openStore({ kind: "pglite", dataDir });
    try {
      expect(openToOthers(dataDir)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
