import "server-only";
import { addressFrom, trustedPeerAddress } from "@/lib/client-address";
import { and, desc, eq, gt, lt } from "drizzle-orm";
import type { ConsoleDb } from "./store/client";
import { signInAttempts } from "./store/schema";

/**
 * Failed sign-ins per client, counted in the console's store so every replica
 * sees the same counts: after `maxFailures` within `windowMs` the client waits
 * until the oldest of those failures leaves the window.
 */
export interface SignInLimit {
  maxFailures: number;
  windowMs: number;
}

export type SignInGate = { allowed: true } | { allowed: false; retryAfterMs: number };

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

export async function recordSignInFailure(db: ConsoleDb, clientKey: string, limit: SignInLimit, now = new Date()): Promise<void> {
  await db.insert(signInAttempts).values({ clientKey, failedAt: now });
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
