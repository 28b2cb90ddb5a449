import "server-only";
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
 * The client's address from the request headers: the X-Forwarded-For entry `hops`
 * places from the right (the nearest trusted proxy's view; Next.js writes the
 * socket address there when no proxy did), else X-Real-IP.
 */
export function clientAddress(headers: Headers | Record<string, string | string[] | undefined>, hops = 1): string {
  const get = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const v = headers[name] ?? headers[name.toLowerCase()];
    return Array.isArray(v) ? v.join(",") : v;
  };
  const forwarded = (get("x-forwarded-for") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const picked = forwarded.length > 0 ? forwarded[Math.max(0, forwarded.length - hops)] : get("x-real-ip")?.trim();
  return (picked || "unknown").slice(0, 64);
}
