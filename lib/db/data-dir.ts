import { randomBytes } from "node:crypto";
import { chmodSync, linkSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";

/** An embedded store's data dir: kept to its owner, and open in one process at a time. */

/** The data dir and everything under it: directories 0700, files 0600 (the store, keys and secrets live here). */
export function restrictToOwner(dir: string): void {
  chmodSync(dir, 0o700);
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isDirectory()) chmodSync(full, 0o700);
    else if (entry.isFile()) chmodSync(full, 0o600);
  }
}

/**
 * Lock files this process holds. The pid in a lock file cannot tell this process's
 * own open store from a stale file left by an earlier process that had the same pid
 * (a restarted container is pid 1 again); this set can. On globalThis because a hot
 * reload re-evaluates this module while the first client is still open.
 */
const HELD_KEY = Symbol.for("stratus.heldDataDirs");
const held = ((globalThis as { [HELD_KEY]?: Set<string> })[HELD_KEY] ??= new Set<string>());

/**
 * PGlite does not lock its data dir and a second opener corrupts it: take an
 * exclusive lock file, and take over one left by a process that no longer runs.
 *
 * The lock appears whole or not at all: its pid is written under a name of this attempt's own, then linked into place
 * (a link to a name that exists fails), so no one reads it empty. A stale lock is moved aside before it is removed (a
 * rename moves one file, whichever is there): when two processes find the same stale lock, the second moves the
 * first's new lock instead, sees that it is not the stale one it read, and puts it back.
 */
export function lockDataDir(dir: string, lockName = "stratus.lock"): () => void {
  const lockPath = path.join(dir, lockName);
  if (held.has(lockPath)) {
    throw new Error(
      `The data dir ${dir} is already open in this process (${process.pid}). PGlite allows one client per data dir: ` +
        "share the open store instead of opening it again, or use another STRATUS_DATA_DIR.",
    );
  }
  const pid = String(process.pid);
  const mine = `${lockPath}.${pid}.${randomBytes(6).toString("hex")}`;
  writeFileSync(mine, pid, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(mine, lockPath);
        held.add(lockPath);
        return () => {
          held.delete(lockPath);
          try {
            if (readFileSync(lockPath, "utf8") === pid) unlinkSync(lockPath);
          } catch {
            // already gone
          }
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = readIfThere(lockPath);
      if (holder === null) continue;
      const holderPid = Number(holder);
      if (Number.isInteger(holderPid) && holderPid > 0 && holderPid !== process.pid && isAlive(holderPid)) {
        throw new Error(
          `The data dir ${dir} is in use by process ${holderPid}. PGlite allows one process per data dir: ` +
            "stop that process, use another STRATUS_DATA_DIR, or set DATABASE_URL to share PostgreSQL.",
        );
      }
      removeIfStill(lockPath, holder);
    }
  } finally {
    unlinkSync(mine);
  }
  throw new Error(`Could not lock the data dir ${dir}: its lock file ${lockName} keeps changing`);
}

function readIfThere(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Removes the lock file if it still says `stale`; a lock another process took meanwhile is put back. */
export function removeIfStill(lockPath: string, stale: string): void {
  const aside = `${lockPath}.stale.${process.pid}.${randomBytes(6).toString("hex")}`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  try {
    if (readFileSync(aside, "utf8") !== stale) linkSync(aside, lockPath);
  } catch (error) {
    // EEXIST: a third process took the free name between the rename and the link. The first then holds no lock file
    // while it runs: three processes starting at one instant over a stale lock, which this does not cover.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    unlinkSync(aside);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
