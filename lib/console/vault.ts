import "server-only";
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { and, eq, isNull, lt, ne, or, sql, type SQL } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { closeOnExit } from "@/lib/close-on-exit";
import { revokeMintedKeys } from "./minted-keys";
import {
  bindEntry,
  cachedActive,
  cacheOf,
  ending,
  entryOf,
  forget,
  heldSignOuts,
  holdSignOut,
  releaseSignOut,
  remember,
  secretSlot,
  signOutHeld,
  TOUCH_EVERY_MS,
  type CachedSession,
} from "./vault-cache";
import type { ConsoleDb } from "./store/client";
import { sessions } from "./store/schema";

/**
 * The key vault: which API key a browser session signs with. The browser holds an
 * opaque session id (inside the encrypted next-auth cookie); the secret stays here,
 * encrypted with AES-256-GCM under a key derived from AUTH_SECRET. Active sessions
 * are also kept in memory (vault-cache.ts: the rules that keep that copy exact).
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
 * The session behind an id, if it is still good: an expired one is deleted, a
 * revoked one reported as such; a good one has its last_seen_at moved on (at most
 * every TOUCH_EVERY_MS). Served from memory while the cached copy allows it.
 */
export async function lookupVaultSession(db: ConsoleDb, sessionId: string, limits: VaultLimits, now = new Date()): Promise<SessionLookup> {
  // Signed out here while the store was away: the row is still there until the store takes the deletion.
  if (signOutHeld(sessionId, now.getTime())) return { status: "missing" };
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
    bindEntry(session, entry);
    // Signed out or revoked while the row was being read: this request may go on with what it read, later ones may not.
    if (cache.generation === generation) remember(cache, sessionId, entry);
  }
  return { status: "active", session };
}

/** The id (not the secret) of the key a session read from the vault signs with. */
export function sessionAccessKeyId(session: VaultSession): string | undefined {
  return entryOf(session)?.accessKeyId;
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
  const entry = entryOf(session);
  if (!entry) return vaultCredentials(db, key, session.sessionId);
  const known = entry.credentials.get();
  if (known) return known;
  const credentials = { accessKeyId: entry.accessKeyId, secretKey: unseal(key, session.sessionId, entry.sealed) };
  entry.credentials.set(credentials);
  return credentials;
}

/**
 * Moves a live session's row to a new id, its key sealed again (the id is the seal's associated data),
 * with `changes` made in the same statement: the old id opens nothing from then on. Null when the
 * session has ended (or another request moved it first).
 */
async function moveVaultSession(db: ConsoleDb, key: Buffer, sessionId: string, changes: PgUpdateSetSource<typeof sessions>): Promise<{ sessionId: string; factors: string[] } | null> {
  const moved = newSessionId();
  let result: { sessionId: string; factors: string[] } | null = null;
  await ending(db, sessionId, () =>
    db.transaction(async (tx) => {
      const [row] = await tx
        .select({ sealed: sessions.secretCiphertext })
        .from(sessions)
        .where(and(eq(sessions.id, sessionId), isNull(sessions.endedReason)))
        .for("update");
      if (!row) return;
      const sealed = seal(key, moved, unseal(key, sessionId, row.sealed));
      const [updated] = await tx
        .update(sessions)
        .set({ ...changes, id: moved, secretCiphertext: sealed, webauthnChallenge: null })
        .where(eq(sessions.id, sessionId))
        .returning({ factors: sessions.factors });
      if (updated) result = { sessionId: moved, factors: updated.factors };
    }),
  );
  return result;
}

/**
 * A session whose second factor is given, as it goes on: under a new id, owing nothing. The id the
 * cookie named while the session was pending opens nothing any more. Returns the new id; null when the
 * session has ended.
 */
export async function promoteVaultSession(db: ConsoleDb, key: Buffer, sessionId: string): Promise<string | null> {
  return (await moveVaultSession(db, key, sessionId, { mfaPending: false }))?.sessionId ?? null;
}

/** Sign-out: the entry goes, and with it every way to use the key through this session (a minted key is deleted). */
export async function deleteVaultSession(db: ConsoleDb, sessionId: string): Promise<void> {
  let ended: EndedSession[] = [];
  await ending(db, sessionId, async () => {
    ended = await db.delete(sessions).where(eq(sessions.id, sessionId)).returning(endedColumns);
  });
  await revokeKeysOf(ended);
}

/** How often a sign-out the store could not take is tried again, at first and at most. */
export const SIGN_OUT_RETRY_MS = { first: 5_000, most: 60_000 } as const;
const SIGN_OUT_RETRY_KEY = Symbol.for("stratus.vaultSignOutRetry");
type GlobalWithRetry = typeof globalThis & { [SIGN_OUT_RETRY_KEY]?: ReturnType<typeof setTimeout> };

export interface SignOutRetry {
  /** The first wait and the longest; each pass that fails waits twice as long as the last. */
  retryMs?: { first: number; most: number };
  /** Where a pass that leaves some unwritten, or drops some, says so (one line per pass, with counts). */
  log?: (level: "warn" | "error", message: string) => void;
}

const stderrLog: NonNullable<SignOutRetry["log"]> = (level, msg) => process.stderr.write(`${JSON.stringify({ level, msg, component: "auth" })}\n`);

/**
 * A person's sign-out. The browser's cookie is cleared whatever happens here, but a copy of it (another device's, a
 * stolen one) would open the session again: so when the store cannot take the deletion now (away: a restart, a
 * failover), the session is refused by this process at once and the deletion tried again, every few seconds and then
 * up to a minute apart, until it is written or the session could no longer be alive anyway (maxHours from now), and
 * once more as the server stops (closeOnExit). Held in this process only: another replica, or this one restarted
 * before the store is back, knows nothing of it (the session then ends with its idle timeout). Throws the first
 * failure, for the caller to log. `open` gives the store (which may itself be what fails).
 */
export async function signOutVaultSession(open: () => Promise<ConsoleDb>, sessionId: string, limits: VaultLimits, retry: SignOutRetry = {}): Promise<void> {
  try {
    await deleteVaultSession(await open(), sessionId);
  } catch (error) {
    holdSignOut(sessionId, Date.now() + limits.maxHours * 3_600_000);
    const retryMs = retry.retryMs ?? SIGN_OUT_RETRY_MS;
    const log = retry.log ?? stderrLog;
    retrySignOuts(open, retryMs.first, retryMs, log);
    closeOnExit("the sign-outs held", async () => {
      const left = await writeHeldSignOuts(open);
      if (left > 0) log("error", `${left} sign-outs the store did not take are forgotten as the server stops: those sessions end with their idle timeout`);
    });
    throw error;
  }
}

/**
 * Writes the held sign-outs, oldest first, until the store refuses one (it is away still: the rest would wait as
 * long each); those past when their session could have lived are let go. How many are still held.
 */
async function writeHeldSignOuts(open: () => Promise<ConsoleDb>): Promise<number> {
  for (const [sessionId, until] of heldSignOuts()) {
    if (until <= Date.now()) {
      releaseSignOut(sessionId);
      continue;
    }
    try {
      await deleteVaultSession(await open(), sessionId);
      releaseSignOut(sessionId);
    } catch {
      break;
    }
  }
  return heldSignOuts().length;
}

/** One timer for every sign-out still to be written: a pass that leaves some waits twice as long before the next. */
function retrySignOuts(open: () => Promise<ConsoleDb>, delay: number, retryMs: { first: number; most: number }, log: NonNullable<SignOutRetry["log"]>): void {
  const g = globalThis as GlobalWithRetry;
  if (g[SIGN_OUT_RETRY_KEY]) return;
  const timer = setTimeout(() => {
    void (async () => {
      const held = heldSignOuts().length;
      const left = await writeHeldSignOuts(open);
      delete g[SIGN_OUT_RETRY_KEY];
      if (left === 0) return;
      // Also those signed out while this pass ran, which it did not see: the wait grows only while passes fail.
      if (left >= held) log("warn", `${left} sign-outs still not taken by the store: refused here, tried again`);
      retrySignOuts(open, left >= held ? Math.min(delay * 2, retryMs.most) : retryMs.first, retryMs, log);
    })();
  }, delay);
  timer.unref();
  g[SIGN_OUT_RETRY_KEY] = timer;
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
  return endSessionsWhere(db, eq(sessions.ssoProviderId, ssoProviderId));
}

/** Ends every live session of a person but one (the one that removed a factor of theirs): marked revoked, minted keys deleted. */
export async function endOtherSessionsOf(db: ConsoleDb, userId: string, keptSessionId: string): Promise<number> {
  return endSessionsWhere(db, and(eq(sessions.userId, userId), ne(sessions.id, keptSessionId))!);
}

async function endSessionsWhere(db: ConsoleDb, which: SQL): Promise<number> {
  const cache = cacheOf(db);
  cache.generation++;
  const ended = await db
    .update(sessions)
    .set({ secretCiphertext: "", endedReason: "revoked" })
    .where(and(which, isNull(sessions.endedReason)))
    .returning({ id: sessions.id, ...endedColumns });
  for (const row of ended) forget(db, row.id);
  await revokeKeysOf(ended);
  return ended.length;
}

/**
 * A second factor given to a live session, recorded among its factors (and its WebAuthn challenge
 * spent): its id and all its factors as they now stand, or null when it has ended. A session still
 * owing its step (`move`) moves to a new id in the same transaction (a request that moved it first,
 * with another factor, is refused: null). Only the request that gave the factor learns the new id, so
 * a copy of the cookie seen or planted earlier rides on no proof the person gives, not even between
 * two of their answers. A whole session (confirming it is the person before changing their factors)
 * keeps its id, which its other requests under way still carry. The cached copy goes first.
 */
export async function recordSessionFactor(
  db: ConsoleDb,
  key: Buffer,
  sessionId: string,
  factor: string,
  move: boolean,
  endsBy?: Date,
): Promise<{ sessionId: string; factors: string[] } | null> {
  const factors = sql`array_append(${sessions.factors}, ${factor})`;
  // A factor that holds only until a moment (enrolment's grace) ends the session then at the latest.
  const until = endsBy ? { expiresAt: sql`least(${sessions.expiresAt}, ${endsBy.toISOString()}::timestamptz)` } : {};
  if (move) return moveVaultSession(db, key, sessionId, { factors, ...until });
  let recorded: { sessionId: string; factors: string[] } | null = null;
  await ending(db, sessionId, async () => {
    const [row] = await db
      .update(sessions)
      .set({ factors, ...until, webauthnChallenge: null })
      .where(and(eq(sessions.id, sessionId), isNull(sessions.endedReason)))
      .returning({ factors: sessions.factors });
    if (row) recorded = { sessionId, factors: row.factors };
  });
  return recorded;
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
