import { chmodSync, closeSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from "node:fs";
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
 */
export function lockDataDir(dir: string, lockName = "stratus.lock"): () => void {
  const lockPath = path.join(dir, lockName);
  if (held.has(lockPath)) {
    throw new Error(
      `The data dir ${dir} is already open in this process (${process.pid}). PGlite allows one client per data dir: ` +
        "share the open store instead of opening it again, or use another STRATUS_DATA_DIR.",
    );
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      held.add(lockPath);
      return () => {
        held.delete(lockPath);
        try {
          if (readFileSync(lockPath, "utf8") === String(process.pid)) unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(readFileSync(lockPath, "utf8"));
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new Error(
          `The data dir ${dir} is in use by process ${holder}. PGlite allows one process per data dir: ` +
            "stop that process, use another STRATUS_DATA_DIR, or set DATABASE_URL to share PostgreSQL.",
        );
      }
      unlinkSync(lockPath);
    }
  }
  throw new Error(`Could not lock the data dir ${dir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
