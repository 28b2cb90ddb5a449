import "server-only";
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { revokeMintedKeys } from "./minted-keys";
import type { ConsoleDb } from "./store/client";
import { sessions } from "./store/schema";

/**
 * The key vault: which API key a browser session signs with. The browser holds an
 * opaque session id (inside the encrypted next-auth cookie); the secret stays here,
 * encrypted with AES-256-GCM under a key derived from AUTH_SECRET.
 */

export interface VaultLimits {
  idleMinutes: number;
  maxHours: number;
}

export interface Credentials {
  accessKeyId: string;
  secretKey: string;
}

export interface VaultSession {
  sessionId: string;
  userId: string;
  email: string;
  /** When the session began (ms since the epoch): a suspension after it ends the session. */
  startedAt?: number;
  /** The SSO provider that signed the session in (its key was minted for it); absent for a key sign-in. */
  ssoProviderId?: string;
  /** A second factor is still owed (an organization of the person requires MFA): nothing but the MFA step answers. */
  mfaPending: boolean;
  /** How the session was signed in, in order ("api_key" or "sso", then the second factor). */
  factors: readonly string[];
}

export type SessionLookup =
  | { status: "active"; session: VaultSession }
  | { status: "expired" | "revoked" | "missing" };

/** Writes to last_seen_at at most this often: reads need not all write. */
const TOUCH_EVERY_MS = 30_000;

export function deriveVaultKey(authSecret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", authSecret, "stratus-console", "stratus console key vault v1", 32));
}

/** AES-256-GCM with the session id as associated data: a ciphertext moved to another row does not open. */
export function seal(key: Buffer, sessionId: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(sessionId, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
}

export function unseal(key: Buffer, sessionId: string, sealed: string): string {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("unreadable vault entry");
  // A fixed tag length: GCM would otherwise accept a truncated tag, which is far easier to forge.
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"), { authTagLength: 16 });
  decipher.setAAD(Buffer.from(sessionId, "utf8"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}

export function newSessionId(): string {
  return randomBytes(32).toString("base64url");
}

/** When a session started now ends at the latest (a key minted for it expires then too). */
export function sessionEnd(limits: VaultLimits, now: Date): Date {
  return new Date(now.getTime() + limits.maxHours * 3_600_000);
}

/**
 * Stores a verified key for a new session and returns the session id. With `ssoProviderId`, the key
 * was minted for this session: it is deleted whenever the session ends.
 */
export async function createVaultSession(
  db: ConsoleDb,
  key: Buffer,
  input: { userId: string; email: string; ssoProviderId?: string; mfaPending?: boolean } & Credentials,
  limits: VaultLimits,
  now = new Date(),
): Promise<string> {
  await purgeExpiredSessions(db, limits, now);
  const id = newSessionId();
  await db.insert(sessions).values({
    id,
    userId: input.userId,
    email: input.email,
    accessKeyId: input.accessKeyId,
    secretCiphertext: seal(key, id, input.secretKey),
    createdAt: now,
    lastSeenAt: now,
    expiresAt: sessionEnd(limits, now),
    ssoProviderId: input.ssoProviderId ?? null,
    mfaPending: input.mfaPending ?? false,
    factors: [input.ssoProviderId ? "sso" : "api_key"],
  });
  return id;
}

/** What an ended session leaves to clean up: the keys minted for SSO sessions among them. */
const endedColumns = { accessKeyId: sessions.accessKeyId, ssoProviderId: sessions.ssoProviderId };
type EndedSession = { accessKeyId: string; ssoProviderId: string | null };

async function revokeKeysOf(ended: EndedSession[]): Promise<void> {
  await revokeMintedKeys(ended.filter((row) => row.ssoProviderId !== null).map((row) => row.accessKeyId));
}

function isExpired(row: { lastSeenAt: Date; expiresAt: Date }, limits: VaultLimits, now: Date): boolean {
  return row.expiresAt.getTime() <= now.getTime() || row.lastSeenAt.getTime() + limits.idleMinutes * 60_000 <= now.getTime();
}

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

interface CachedSession {
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

interface SessionCache {
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

function cacheOf(db: ConsoleDb): SessionCache {
  let cache = registry.byDb.get(db);
  if (!cache) {
    cache = { entries: new Map(), generation: 0, sweptAt: 0 };
    registry.byDb.set(db, cache);
  }
  return cache;
}

/** A slot the secret lives in: a closure, so it never shows up in a log or JSON of the entry. */
function secretSlot(): CachedSession["credentials"] {
  let value: Credentials | undefined;
  return {
    get: () => value,
    set: (next) => {
      value = next;
    },
  };
}

function remember(cache: SessionCache, sessionId: string, entry: CachedSession): void {
  cache.entries.delete(sessionId);
  cache.entries.set(sessionId, entry);
  if (cache.entries.size > SESSION_CACHE_MAX_ENTRIES) cache.entries.delete(cache.entries.keys().next().value!);
  registry.bySession.set(entry.session, entry);
}

function forget(db: ConsoleDb, sessionId: string): void {
  const cache = cacheOf(db);
  cache.generation++;
  cache.entries.delete(sessionId);
}

/**
 * A change that ends a session: the entry goes before the write (reads already under
 * way are not cached) and again after it (nor are reads that began during it).
 */
async function ending(db: ConsoleDb, sessionId: string, write: () => Promise<unknown>): Promise<void> {
  forget(db, sessionId);
  try {
    await write();
  } finally {
    forget(db, sessionId);
  }
}

/** The cached session when it may be used as it is: active, not due a touch, not too old. */
function cachedActive(cache: SessionCache, sessionId: string, limits: VaultLimits, now: number): CachedSession | null {
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

/**
 * The session behind an id, if it is still good: an expired one is deleted, a
 * revoked one reported as such; a good one has its last_seen_at moved on (at most
 * every TOUCH_EVERY_MS). Served from memory while the cached copy allows it.
 */
export async function lookupVaultSession(db: ConsoleDb, sessionId: string, limits: VaultLimits, now = new Date()): Promise<SessionLookup> {
  const cache = cacheOf(db);
  const hit = cachedActive(cache, sessionId, limits, now.getTime());
  if (hit) return { status: "active", session: hit.session };

  const generation = cache.generation;
  const [row] = await db
    .select({
      userId: sessions.userId,
      email: sessions.email,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
      endedReason: sessions.endedReason,
      createdAt: sessions.createdAt,
      accessKeyId: sessions.accessKeyId,
      secretCiphertext: sessions.secretCiphertext,
      ssoProviderId: sessions.ssoProviderId,
      mfaPending: sessions.mfaPending,
      factors: sessions.factors,
    })
    .from(sessions)
    .where(eq(sessions.id, sessionId));
  if (!row) return { status: "missing" };
  if (isExpired(row, limits, now)) {
    await deleteVaultSession(db, sessionId);
    return { status: "expired" };
  }
  if (row.endedReason === "revoked") return { status: "revoked" };
  let lastSeenAt = row.lastSeenAt.getTime();
  if (now.getTime() - lastSeenAt >= TOUCH_EVERY_MS) {
    await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, sessionId));
    lastSeenAt = now.getTime();
  }
  const session: VaultSession = Object.freeze({
    sessionId,
    userId: row.userId,
    email: row.email,
    startedAt: row.createdAt.getTime(),
    ...(row.ssoProviderId ? { ssoProviderId: row.ssoProviderId } : {}),
    mfaPending: row.mfaPending,
    factors: Object.freeze([...row.factors]),
  });
  if (row.endedReason === null) {
    const entry: CachedSession = {
      session,
      accessKeyId: row.accessKeyId,
      sealed: row.secretCiphertext,
      expiresAt: row.expiresAt.getTime(),
      // Never later than the row: a touch written by another replica is only ever missed, never invented.
      lastSeenAt: Math.min(lastSeenAt, now.getTime()),
      readAt: now.getTime(),
      credentials: secretSlot(),
    };
    registry.bySession.set(session, entry);
    // Signed out or revoked while the row was being read: this request may go on with what it read, later ones may not.
    if (cache.generation === generation) remember(cache, sessionId, entry);
  }
  return { status: "active", session };
}

/** The id (not the secret) of the key a session read from the vault signs with. */
export function sessionAccessKeyId(session: VaultSession): string | undefined {
  return registry.bySession.get(session)?.accessKeyId;
}

/** The key a live session signs with; null when the session has ended. */
export async function vaultCredentials(db: ConsoleDb, key: Buffer, sessionId: string): Promise<Credentials | null> {
  const [row] = await db
    .select({ accessKeyId: sessions.accessKeyId, secretCiphertext: sessions.secretCiphertext })
    .from(sessions)
    .where(and(eq(sessions.id, sessionId), isNull(sessions.endedReason)));
  if (!row) return null;
  return { accessKeyId: row.accessKeyId, secretKey: unseal(key, sessionId, row.secretCiphertext) };
}

/**
 * The key of a session lookupVaultSession returned, from the row that lookup read
 * (unsealed once per cached entry); for any other session object, as vaultCredentials.
 */
export async function sessionCredentials(db: ConsoleDb, key: Buffer, session: VaultSession): Promise<Credentials | null> {
  const entry = registry.bySession.get(session);
  if (!entry) return vaultCredentials(db, key, session.sessionId);
  const known = entry.credentials.get();
  if (known) return known;
  const credentials = { accessKeyId: entry.accessKeyId, secretKey: unseal(key, session.sessionId, entry.sealed) };
  entry.credentials.set(credentials);
  return credentials;
}

/** Sign-out: the entry goes, and with it every way to use the key through this session (a minted key is deleted). */
export async function deleteVaultSession(db: ConsoleDb, sessionId: string): Promise<void> {
  let ended: EndedSession[] = [];
  await ending(db, sessionId, async () => {
    ended = await db.delete(sessions).where(eq(sessions.id, sessionId)).returning(endedColumns);
  });
  await revokeKeysOf(ended);
}

/** The gateway refused the key (or the session may no longer use it): drop the secret, keep a marker so the user is told why. */
export async function markVaultSessionRevoked(db: ConsoleDb, sessionId: string): Promise<void> {
  let ended: EndedSession[] = [];
  await ending(db, sessionId, async () => {
    ended = await db
      .update(sessions)
      .set({ secretCiphertext: "", endedReason: "revoked" })
      .where(and(eq(sessions.id, sessionId), isNull(sessions.endedReason)))
      .returning(endedColumns);
  });
  await revokeKeysOf(ended);
}

/**
 * Ends every live session an SSO provider signed in (the provider was deleted): each is marked
 * revoked, so its person is told why, and the keys minted for them are deleted.
 */
export async function endSsoProviderSessions(db: ConsoleDb, ssoProviderId: string): Promise<number> {
  const cache = cacheOf(db);
  cache.generation++;
  const ended = await db
    .update(sessions)
    .set({ secretCiphertext: "", endedReason: "revoked" })
    .where(and(eq(sessions.ssoProviderId, ssoProviderId), isNull(sessions.endedReason)))
    .returning({ id: sessions.id, ...endedColumns });
  for (const row of ended) forget(db, row.id);
  await revokeKeysOf(ended);
  return ended.length;
}

/**
 * A second factor given to a live session: recorded among its factors, and with `satisfied` the session
 * owes none any more (pages and /api/cloud answer it from now on). The cached copy goes first.
 */
export async function recordSessionFactor(db: ConsoleDb, sessionId: string, factor: string, satisfied: boolean): Promise<void> {
  await ending(db, sessionId, () =>
    db
      .update(sessions)
      .set({ factors: sql`array_append(${sessions.factors}, ${factor})`, mfaPending: satisfied ? false : sessions.mfaPending, webauthnChallenge: null })
      .where(and(eq(sessions.id, sessionId), isNull(sessions.endedReason))),
  );
}

/** Keeps the WebAuthn challenge a session was just given; a later one replaces it. */
export async function setWebauthnChallenge(db: ConsoleDb, sessionId: string, challenge: string): Promise<void> {
  await db.update(sessions).set({ webauthnChallenge: challenge }).where(and(eq(sessions.id, sessionId), isNull(sessions.endedReason)));
}

/** The session's WebAuthn challenge, spent: a second answer to the same challenge finds none. */
export async function takeWebauthnChallenge(db: ConsoleDb, sessionId: string): Promise<string | null> {
  const [row] = await db.select({ challenge: sessions.webauthnChallenge }).from(sessions).where(eq(sessions.id, sessionId));
  if (!row?.challenge) return null;
  const spent = await db
    .update(sessions)
    .set({ webauthnChallenge: null })
    .where(and(eq(sessions.id, sessionId), eq(sessions.webauthnChallenge, row.challenge)))
    .returning({ id: sessions.id });
  return spent.length > 0 ? row.challenge : null;
}

/** How often a process sweeps ended sessions away while it serves requests. */
export const SWEEP_EVERY_MS = 60_000;

/**
 * Deletes sessions past their idle or absolute limit (and the keys minted for them) at most once
 * a minute per process, without holding up the request that triggers it: a session nobody uses
 * again still ends, and its minted key with it, within a minute of any console traffic.
 */
export function sweepExpiredSessions(db: ConsoleDb, limits: VaultLimits, now = Date.now()): void {
  const cache = cacheOf(db);
  if (now - cache.sweptAt < SWEEP_EVERY_MS) return;
  cache.sweptAt = now;
  purgeExpiredSessions(db, limits, new Date(now)).catch(() => {
    cache.sweptAt = 0;
  });
}

export async function purgeExpiredSessions(db: ConsoleDb, limits: VaultLimits, now = new Date()): Promise<void> {
  const idleSince = new Date(now.getTime() - limits.idleMinutes * 60_000);
  const ended = await db
    .delete(sessions)
    .where(or(lt(sessions.expiresAt, now), lt(sessions.lastSeenAt, idleSince)))
    .returning(endedColumns);
  await revokeKeysOf(ended);
}
