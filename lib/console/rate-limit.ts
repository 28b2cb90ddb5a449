import "server-only";
import { addressFrom, trustedPeerAddress } from "@/lib/client-address";
import { and, count, desc, eq, gt, lt } from "drizzle-orm";
import type { ConsoleDb } from "./store/client";
import { signInAttempts } from "./store/schema";

/**
 * Failed sign-ins per client, counted in the console's store so every replica
 * sees the same counts: after `maxFailures` within `windowMs` the client waits
 * until the oldest of those failures leaves the window. An attempt counts from
 * the moment it is made (`takeAttempt`) until it succeeds.
 */
export interface SignInLimit {
  maxFailures: number;
  windowMs: number;
}

export type SignInGate = { allowed: true; /** The attempt `takeAttempt` counted. */ attemptId?: number } | { allowed: false; retryAfterMs: number };

export async function checkSignIn(db: ConsoleDb, clientKey: string, limit: SignInLimit, now = new Date()): Promise<SignInGate> {
  const since = new Date(now.getTime() - limit.windowMs);
  const [blocking] = await db
    .select({ failedAt: signInAttempts.failedAt })
    .from(signInAttempts)
    .where(and(eq(signInAttempts.clientKey, clientKey), gt(signInAttempts.failedAt, since)))
    .orderBy(desc(signInAttempts.failedAt))
    .limit(1)
    .offset(limit.maxFailures - 1);
  if (!blocking) return { allowed: true };
  return { allowed: false, retryAfterMs: Math.max(1_000, blocking.failedAt.getTime() + limit.windowMs - now.getTime()) };
}

/**
 * Counts an attempt before it is checked, for checks an attacker could send many of at once (a second
 * factor's six digits): each attempt is written first and the window counted after, so attempts sent
 * together cannot all pass a count taken before any of them failed. An attempt beyond the limit takes
 * its row back and is refused; the others keep theirs, as their failure unless a success clears the
 * slate (`clearSignInFailures`).
 */
export async function takeAttempt(db: ConsoleDb, clientKey: string, limit: SignInLimit, now = new Date()): Promise<SignInGate> {
  const [taken] = await db.insert(signInAttempts).values({ clientKey, failedAt: now }).returning({ id: signInAttempts.id });
  const since = new Date(now.getTime() - limit.windowMs);
  const [counted] = await db
    .select({ attempts: count() })
    .from(signInAttempts)
    .where(and(eq(signInAttempts.clientKey, clientKey), gt(signInAttempts.failedAt, since)));
  if ((counted?.attempts ?? 0) <= limit.maxFailures) return { allowed: true, attemptId: taken!.id };
  await returnAttempt(db, taken!.id);
  const gate = await checkSignIn(db, clientKey, limit, now);
  return gate.allowed ? { allowed: false, retryAfterMs: 1_000 } : gate;
}

/** An attempt `takeAttempt` counted that turned out not to be one (nothing was checked): it is given back. */
export async function returnAttempt(db: ConsoleDb, attemptId: number): Promise<void> {
  await db.delete(signInAttempts).where(eq(signInAttempts.id, attemptId));
}

/** An attempt `takeAttempt` let through failed: its row stays; older ones leave the window for good. */
export async function pruneSignInFailures(db: ConsoleDb, clientKey: string, limit: SignInLimit, now = new Date()): Promise<void> {
  await db.delete(signInAttempts).where(and(eq(signInAttempts.clientKey, clientKey), lt(signInAttempts.failedAt, new Date(now.getTime() - limit.windowMs))));
}

/** A successful sign-in wipes the client's slate. */
export async function clearSignInFailures(db: ConsoleDb, clientKey: string): Promise<void> {
  await db.delete(signInAttempts).where(eq(signInAttempts.clientKey, clientKey));
}

/** Whole minutes to tell the user, never "0 minutes". */
export function retryMinutes(retryAfterMs: number): number {
  return Math.max(1, Math.ceil(retryAfterMs / 60_000));
}

/**
 * The client's address: the socket's (as the request guard recorded it), or behind
 * `hops` trusted proxies the X-Forwarded-For entry the farthest of them wrote. Nothing
 * the client writes itself counts; without the guard (no address known) every client
 * shares one bucket.
 */
export function clientAddress(headers: Headers | Record<string, string | string[] | undefined>, hops = 0): string {
  const get = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const v = headers[name] ?? headers[name.toLowerCase()];
    return Array.isArray(v) ? v.join(",") : v;
  };
  return addressFrom(get("x-forwarded-for"), trustedPeerAddress(get), hops);
}
