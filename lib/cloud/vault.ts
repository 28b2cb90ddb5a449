import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { and, eq, isNull, lt, or } from "drizzle-orm";
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

/** Stores a verified key for a new session and returns the session id. */
export async function createVaultSession(
  db: ConsoleDb,
  key: Buffer,
  input: { userId: string; email: string } & Credentials,
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
    expiresAt: new Date(now.getTime() + limits.maxHours * 3_600_000),
  });
  return id;
}

function isExpired(row: { lastSeenAt: Date; expiresAt: Date }, limits: VaultLimits, now: Date): boolean {
  return row.expiresAt.getTime() <= now.getTime() || row.lastSeenAt.getTime() + limits.idleMinutes * 60_000 <= now.getTime();
}

/**
 * The sealed key of each session a lookup returned as active, read with it: the
 * call the session is looked up for signs with it without reading the row again.
 * Keyed by the session object, so it lives as long as the request holding it.
 */
const sealedKeys = new WeakMap<VaultSession, { accessKeyId: string; sealed: string }>();

/**
 * The session behind an id, if it is still good: an expired one is deleted, a
 * revoked one reported as such; a good one has its last_seen_at moved on.
 */
export async function lookupVaultSession(db: ConsoleDb, sessionId: string, limits: VaultLimits, now = new Date()): Promise<SessionLookup> {
  const [row] = await db
    .select({
      userId: sessions.userId,
      email: sessions.email,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
      endedReason: sessions.endedReason,
      accessKeyId: sessions.accessKeyId,
      secretCiphertext: sessions.secretCiphertext,
    })
    .from(sessions)
    .where(eq(sessions.id, sessionId));
  if (!row) return { status: "missing" };
  if (isExpired(row, limits, now)) {
    await deleteVaultSession(db, sessionId);
    return { status: "expired" };
  }
  if (row.endedReason === "revoked") return { status: "revoked" };
  if (now.getTime() - row.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
    await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, sessionId));
  }
  const session: VaultSession = { sessionId, userId: row.userId, email: row.email };
  if (row.endedReason === null) sealedKeys.set(session, { accessKeyId: row.accessKeyId, sealed: row.secretCiphertext });
  return { status: "active", session };
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

/** The key of a session lookupVaultSession just returned, from the row it read; else as vaultCredentials. */
export async function sessionCredentials(db: ConsoleDb, key: Buffer, session: VaultSession): Promise<Credentials | null> {
  const read = sealedKeys.get(session);
  if (!read) return vaultCredentials(db, key, session.sessionId);
  return { accessKeyId: read.accessKeyId, secretKey: unseal(key, session.sessionId, read.sealed) };
}

/** Sign-out: the entry goes, and with it every way to use the key through this session. */
export async function deleteVaultSession(db: ConsoleDb, sessionId: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id, sessionId));
}

/** The gateway refused the key: drop the secret, keep a marker so the user is told why. */
export async function markVaultSessionRevoked(db: ConsoleDb, sessionId: string): Promise<void> {
  await db.update(sessions).set({ secretCiphertext: "", endedReason: "revoked" }).where(eq(sessions.id, sessionId));
}

export async function purgeExpiredSessions(db: ConsoleDb, limits: VaultLimits, now = new Date()): Promise<void> {
  const idleSince = new Date(now.getTime() - limits.idleMinutes * 60_000);
  await db.delete(sessions).where(or(lt(sessions.expiresAt, now), lt(sessions.lastSeenAt, idleSince)));
}
