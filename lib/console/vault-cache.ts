import "server-only";
import type { ConsoleDb } from "./store/client";
import type { Credentials, VaultLimits, VaultSession } from "./vault";

/** Writes to last_seen_at at most this often: reads need not all write. */
export const TOUCH_EVERY_MS = 30_000;

/**
 * Active sessions kept in memory, so a console call reads no row and unseals no
 * key on most requests. Correctness rests on four rules:
 *
 * - Expiry stays exact. `expiresAt` never changes and `lastSeenAt` only moves on, so
 *   the copy here can only think a session idle sooner than the row would: a copy
 *   that looks expired is dropped and the row decides, as it did without a cache.
 * - Sign-out (deleteVaultSession) and revocation (markVaultSessionRevoked) drop the
 *   entry in this process before they return, and a lookup that was already reading
 *   the row when they ran does not put it back (the `generation` check).
 * - The row is read again, and last_seen_at written, at least every TOUCH_EVERY_MS,
 *   and any entry older than SESSION_CACHE_TTL_MS is read again: that bounds how long
 *   a sign-out made by another console replica sharing PostgreSQL goes unseen here.
 *   (A key revoked at the gateway needs no notice: the next call is refused by the
 *   gateway and ends the session on whichever replica made it.) With PGlite one
 *   process owns the store, so every change goes through this cache.
 * - Bounded (least recently used goes first), and kept on globalThis: every route
 *   bundle of a Next.js server must see the same entries, or a sign-out handled by
 *   one bundle would leave the session alive in another.
 *
 * The unsealed key is kept with the entry once a call has signed with it, and
 * dropped with it; it is held where neither logging nor JSON of an entry shows it.
 */
export const SESSION_CACHE_TTL_MS = 5_000;
const SESSION_CACHE_MAX_ENTRIES = 10_000;

export interface CachedSession {
  readonly session: VaultSession;
  readonly accessKeyId: string;
  readonly sealed: string;
  readonly expiresAt: number;
  /** last_seen_at as this process last read or wrote it (never later than the row's). */
  readonly lastSeenAt: number;
  /** When the row was read. */
  readonly readAt: number;
  /** The unsealed key, once a call has needed it. */
  readonly credentials: { get(): Credentials | undefined; set(value: Credentials): void };
}

export interface SessionCache {
  entries: Map<string, CachedSession>;
  /** Moves on every sign-out and revocation: a row read before one is not cached. */
  generation: number;
  /** When sweepExpiredSessions last ran here (ms since the epoch). */
  sweptAt: number;
}

interface VaultCacheRegistry {
  byDb: WeakMap<object, SessionCache>;
  /** The entry each session object a lookup returned was read with. */
  bySession: WeakMap<VaultSession, CachedSession>;
}

const REGISTRY_KEY = Symbol.for("stratus.vaultSessionCache");
type GlobalWithRegistry = typeof globalThis & { [REGISTRY_KEY]?: VaultCacheRegistry };
const registry = ((globalThis as GlobalWithRegistry)[REGISTRY_KEY] ??= { byDb: new WeakMap(), bySession: new WeakMap() });

export function cacheOf(db: ConsoleDb): SessionCache {
  let cache = registry.byDb.get(db);
  if (!cache) {
    cache = { entries: new Map(), generation: 0, sweptAt: 0 };
    registry.byDb.set(db, cache);
  }
  return cache;
}

/** A slot the secret lives in: a closure, so it never shows up in a log or JSON of the entry. */
export function secretSlot(): CachedSession["credentials"] {
  let value: Credentials | undefined;
  return {
    get: () => value,
    set: (next) => {
      value = next;
    },
  };
}

export function remember(cache: SessionCache, sessionId: string, entry: CachedSession): void {
  cache.entries.delete(sessionId);
  cache.entries.set(sessionId, entry);
  if (cache.entries.size > SESSION_CACHE_MAX_ENTRIES) cache.entries.delete(cache.entries.keys().next().value!);
  registry.bySession.set(entry.session, entry);
}

export function forget(db: ConsoleDb, sessionId: string): void {
  const cache = cacheOf(db);
  cache.generation++;
  cache.entries.delete(sessionId);
}

/**
 * A change that ends a session: the entry goes before the write (reads already under
 * way are not cached) and again after it (nor are reads that began during it).
 */
export async function ending(db: ConsoleDb, sessionId: string, write: () => Promise<unknown>): Promise<void> {
  forget(db, sessionId);
  try {
    await write();
  } finally {
    forget(db, sessionId);
  }
}

/** The cached session when it may be used as it is: active, not due a touch, not too old. */
export function cachedActive(cache: SessionCache, sessionId: string, limits: VaultLimits, now: number): CachedSession | null {
  const entry = cache.entries.get(sessionId);
  if (!entry) return null;
  const fresh =
    now >= entry.readAt &&
    now - entry.readAt < SESSION_CACHE_TTL_MS &&
    now - entry.lastSeenAt < TOUCH_EVERY_MS &&
    entry.expiresAt > now &&
    entry.lastSeenAt + limits.idleMinutes * 60_000 > now;
  if (!fresh) {
    cache.entries.delete(sessionId);
    return null;
  }
  // Most recently used goes last.
  cache.entries.delete(sessionId);
  cache.entries.set(sessionId, entry);
  return entry;
}

/** Ties a session object a lookup returned to the entry it was read with (cached or not). */
export function bindEntry(session: VaultSession, entry: CachedSession): void {
  registry.bySession.set(session, entry);
}

/** The entry a session object a lookup returned was read with. */
export function entryOf(session: VaultSession): CachedSession | undefined {
  return registry.bySession.get(session);
}

/**
 * Sign-outs the store could not take when they were made (it was away: a restart, a failover), each with when the
 * session could no longer be alive anyway: such a session is refused in this process at once (lookupVaultSession),
 * while its deletion is tried again (signOutVaultSession). On globalThis, as the entries are.
 */
const SIGNED_OUT_KEY = Symbol.for("stratus.vaultPendingSignOuts");
type GlobalWithSignOuts = typeof globalThis & { [SIGNED_OUT_KEY]?: Map<string, number> };
const signedOut = ((globalThis as GlobalWithSignOuts)[SIGNED_OUT_KEY] ??= new Map());

export function holdSignOut(sessionId: string, until: number): void {
  // Not bounded by a count: dropping one would bring its session back. Each goes when its session could not be alive.
  const now = Date.now();
  for (const [held, heldUntil] of signedOut) if (heldUntil <= now) signedOut.delete(held);
  signedOut.set(sessionId, until);
}

export function releaseSignOut(sessionId: string): void {
  signedOut.delete(sessionId);
}

/** Whether the session was signed out here and its deletion is not written yet. */
export function signOutHeld(sessionId: string, now: number): boolean {
  const until = signedOut.get(sessionId);
  if (until === undefined) return false;
  if (until > now) return true;
  // Past when the session could have lived: its row, if still there, is expired, which a lookup says itself.
  signedOut.delete(sessionId);
  return false;
}

/** The sign-outs still to be written, as [session id, until]. */
export function heldSignOuts(): Array<[string, number]> {
  return [...signedOut];
}
