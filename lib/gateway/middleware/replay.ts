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

/** Refuses (401) a mutating call whose signature was accepted before; call after the signature is verified. */
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
  if (!(await recordSignature(deps.db, signature, expiresAt, new Date(now)))) throw new GatewayError("unauthenticated", REPLAY_MESSAGE);
}

async function purgeExpired(deps: GatewayDeps, now: number): Promise<void> {
  if (now - (lastPurge.get(deps) ?? 0) < PURGE_EVERY_MS) return;
  lastPurge.set(deps, now);
  await purgeSignatures(deps.db, new Date(now));
}

/** Signatures on record (for tests). */
export async function recordedSignatures(deps: GatewayDeps): Promise<number> {
  return countSignatures(deps.db);
}
