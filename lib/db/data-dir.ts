import { randomBytes } from "node:crypto";
import { chmodSync, linkSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";

/** An embedded store's data dir: kept to its owner, and open in one process at a time. */

/**
 * What Stratus keeps in a data dir at its top: its stores (PGlite's `pgdata`, the console's `console`), its keys and
 * secrets, the demo's credentials, and its lock files (with the names a lock is written under before it is linked).
 */
const OWN_DIRS = new Set(["pgdata", "console"]);
const OWN_FILE = /^(?:master\.key|auth\.secret|demo-credentials\.json|[\w-]+\.lock(?:\..+)?)$/;

/**
 * The data dir 0700, and what Stratus keeps in it (OWN_DIRS whole, OWN_FILE at the top) directories 0700 and files
 * 0600: the store, keys and secrets live there, and PGlite writes its files 0666. Nothing else in the dir is touched:
 * a data dir set to a directory that holds other things (the checkout, a home directory) keeps their modes (an
 * executable stays one). Links are not followed.
 */
export function restrictToOwner(dir: string): void {
  chmodSync(dir, 0o700);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && OWN_DIRS.has(entry.name)) restrictTree(full);
    else if (entry.isFile() && OWN_FILE.test(entry.name)) chmodSync(full, 0o600);
  }
}

function restrictTree(dir: string): void {
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
 * (a link to a name that exists fails), so no one reads it empty. A stale lock is removed only under the takeover
 * guard (removeIfStill), so of several processes that find it at once exactly one takes the data dir.
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
    for (let attempt = 0; attempt < 100; attempt++) {
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
      // Another process taking over the same stale lock holds the guard for a moment: wait it out.
      if (!removeIfStill(lockPath, holder, mine)) sleepSync(10);
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

/**
 * Removes the lock file if it still says `stale`, holding the takeover guard (`<lock>.takeover`, linked into place from
 * `mine`, this attempt's file with its pid, as the lock is) while it reads and removes it. Only a guard's holder removes
 * a lock not its own, and a lock is linked only where none is, so the lock removed is the stale one read, never one
 * another process took meanwhile. False when another process holds the guard (the caller waits and tries again). A
 * guard whose process is gone (it died between two system calls) is removed; should two processes find it so at once,
 * both may take the guard: a crash inside a takeover, then three processes at one instant, which this does not cover.
 */
export function removeIfStill(lockPath: string, stale: string, mine: string): boolean {
  const guard = `${lockPath}.takeover`;
  try {
    linkSync(mine, guard);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const holder = Number(readIfThere(guard));
    if (!(Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder))) unlinkIfThere(guard);
    return false;
  }
  try {
    if (readIfThere(lockPath) === stale) unlinkSync(lockPath);
  } finally {
    unlinkSync(guard);
  }
  return true;
}

function unlinkIfThere(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/** Waits without returning to the event loop: the lock is taken before the store opens, in one synchronous call. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
