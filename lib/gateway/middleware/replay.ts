import { createHash } from "node:crypto";
import type { Context } from "hono";
import { parseAuthorization, parseRfc3339, TIMESTAMP_HEADER } from "@/lib/signing";
import { isMutating } from "../audit";
import type { AppEnv, GatewayDeps } from "../context";
import { GatewayError } from "../errors";
import { countSignatures, purgeSignatures, recordSignature } from "../store/queries/request-signatures";

/**
 * A signature covers path, query, method and timestamp, not the body: within the skew
 * window a captured mutation could be sent again, even with another body. So each
 * mutating call's signature is recorded in the store (a unique key, so replicas on one
 * PostgreSQL see each other's) until its timestamp leaves the window, and a second use
 * is refused. Reads stay repeatable: a replayed GET changes nothing.
 */

const PURGE_EVERY_MS = 60_000;
const lastPurge = new WeakMap<GatewayDeps, number>();

export const REPLAY_MESSAGE = "this signature was already used: sign every request anew";

/**
 * Refuses (401) a mutating call whose signature was accepted before; call after the signature is
 * verified and the body read within its limit (`readBody`). A read has nothing to check.
 */
export async function refuseReplay(c: Context<AppEnv>, now = Date.now()): Promise<void> {
  if (!isMutating(c.req.method)) return;
  const signature = parseAuthorization(c.req.header("authorization"))?.signature;
  if (!signature) return;
  const deps = c.get("deps");
  const skewMs = deps.skewSeconds * 1000;
  const stamp = c.req.header(TIMESTAMP_HEADER) ?? c.req.header("x-crusoe-timestamp");
  const signedAt = stamp ? (parseRfc3339(stamp) ?? now) : now;
  // The signature is accepted until its timestamp leaves the window, and no longer needed after.
  const expiresAt = new Date(Math.max(signedAt, now) + skewMs);
  await purgeExpired(deps, now);
  if (!(await recordSignature(deps.db, await replayKey(c, signature, stamp), expiresAt, new Date(now)))) throw new GatewayError("unauthenticated", REPLAY_MESSAGE);
}

/**
 * What a second use is recognised by. The upstream's own clients sign with whole-second
 * timestamps, so two of their calls to one path in one second carry the same signature: for
 * such a timestamp the body's digest is part of the key, and only the same call with the same
 * body is refused. A timestamp with a fraction of a second (ours) keys on the signature alone,
 * so a replay with another body is refused too.
 */
async function replayKey(c: Context<AppEnv>, signature: string, stamp: string | undefined): Promise<string> {
  if (stamp && WITH_FRACTION.test(stamp)) return signature;
  return `${signature}.${createHash("sha256").update(await c.req.text()).digest("base64url")}`;
}

const WITH_FRACTION = /T\d\d:\d\d:\d\d\.\d/;

async function purgeExpired(deps: GatewayDeps, now: number): Promise<void> {
  if (now - (lastPurge.get(deps) ?? 0) < PURGE_EVERY_MS) return;
  lastPurge.set(deps, now);
  await purgeSignatures(deps.db, new Date(now));
}

/** Signatures on record (for tests). */
export async function recordedSignatures(deps: GatewayDeps): Promise<number> {
  return countSignatures(deps.db);
}
