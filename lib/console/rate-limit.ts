import "server-only";
import { addressFrom, trustedPeerAddress } from "@/lib/client-address";
import { MAX_SIGN_IN_WINDOW_MINUTES } from "@/lib/env";
import { and, count, desc, eq, gt, inArray, lt } from "drizzle-orm";
import ipaddr from "ipaddr.js";
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
  sweepSignInAttempts(db, now.getTime());
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

/**
 * The longest window any limit counts in: the sign-in window's maximum setting (MFA's 15 minutes
 * are shorter). A failure older than this counts for no one and is swept.
 */
const ATTEMPT_HORIZON_MS = MAX_SIGN_IN_WINDOW_MINUTES * 60_000;
const SWEEP_EVERY_MS = 60_000;
const sweptAt = new WeakMap<ConsoleDb, number>();

/**
 * Deletes every client's failures past the horizon, at most once a minute per process, without
 * holding up the attempt that triggers it: a client that never comes back (a sprayer rotating
 * addresses) would otherwise leave its rows for good, since a client's own failures are pruned
 * only at its next one.
 */
export function sweepSignInAttempts(db: ConsoleDb, now = Date.now()): void {
  if (Math.abs(now - (sweptAt.get(db) ?? 0)) < SWEEP_EVERY_MS) return;
  // A sweep that fails is tried again a minute later, like any other.
  sweptAt.set(db, now);
  purgeSignInAttempts(db, new Date(now)).catch(() => undefined);
}

/** Failures one statement deletes: each is short, whatever a spray left behind (the store may stop a long one). */
const SWEEP_BATCH = 5_000;

export async function purgeSignInAttempts(db: ConsoleDb, now = new Date()): Promise<number> {
  const horizon = new Date(now.getTime() - ATTEMPT_HORIZON_MS);
  let deleted = 0;
  for (;;) {
    const expired = db.select({ id: signInAttempts.id }).from(signInAttempts).where(lt(signInAttempts.failedAt, horizon)).limit(SWEEP_BATCH);
    const gone = await db.delete(signInAttempts).where(inArray(signInAttempts.id, expired)).returning({ id: signInAttempts.id });
    deleted += gone.length;
    if (gone.length < SWEEP_BATCH) return deleted;
  }
}

/**
 * The bucket a client's failures count in: its IPv4 address, or the /64 network of its IPv6 address.
 * A /64 is what one subscriber or one server is given: keyed by whole address, a client holding one
 * has 2^64 addresses to fail from afresh. An IPv4 address written as IPv6 (::ffff:192.0.2.1) counts
 * as that IPv4 address; anything that is not an address counts as written.
 */
export function rateLimitKey(address: string): string {
  const bare = hostOf(address);
  if (!ipaddr.isValid(bare)) return address;
  const parsed = ipaddr.process(bare);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const [a, b, c, d] = (parsed as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([a!, b!, c!, d!, 0, 0, 0, 0]).toString()}/64`;
}

/**
 * The address alone, as a proxy may write it into X-Forwarded-For: without brackets and port
 * (`[2001:db8::1]:443`, `203.0.113.7:5678`) or zone (`fe80::1%eth0.100`), none of which tells clients apart.
 */
function hostOf(address: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(address);
  const host = bracketed?.[1] ?? withPort?.[1] ?? address;
  const zone = host.indexOf("%");
  return zone > 0 && host.includes(":") ? host.slice(0, zone) : host;
}

/**
 * A right second factor wipes its person's slate (`mfa:<user>`): the answer proves what the failures
 * were guessing at. A valid API key wipes nothing (lib/console/sign-in.ts): it proves only itself.
 */
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
