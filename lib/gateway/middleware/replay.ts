import { createHash } from "node:crypto";
import type { Context } from "hono";
import { parseAuthorization, parseRfc3339, TIMESTAMP_HEADER } from "@/lib/signing";
import { isMutating } from "../audit";
import type { AppEnv, GatewayDeps } from "../context";
import { GatewayError } from "../errors";
import type { Database } from "../store/client";
import { claimSignature, countSignatures, purgeSignatures, spendSignature, type SignatureRecord } from "../store/queries/request-signatures";

/**
 * A signature covers path, query, method and timestamp, not the body: within the skew
 * window a captured mutation could be sent again, even with another body. So each
 * mutating call's signature is kept in the store (a unique key, so replicas on one
 * PostgreSQL see each other's) until its timestamp leaves the window, in two steps:
 *
 * - claimed before the handler runs, with the body's digest (`claimReplayGuard`);
 * - spent by the change made under it, in the change's own transaction (`spendReplayGuard`,
 *   the first statement of `mutate()`), so it is spent exactly when the change commits.
 *
 * A spent signature is refused (401), and so is one sent again with another body. A retry of a
 * call that changed nothing (a 4xx, a 503 while the store fails over, an answer lost before the
 * commit) carries the same signature and body, and is taken: the upstream's clients
 * (go-retryablehttp under its Terraform provider) retry that way. Reads stay repeatable.
 */

const PURGE_EVERY_MS = 60_000;
const lastPurge = new WeakMap<GatewayDeps, number>();

export const REPLAY_MESSAGE = "this signature was already used: sign every request anew";

/** The call's claim on its signature, and whether its change has been committed under it. */
export type ReplayClaim = SignatureRecord & { spent: boolean };

/**
 * Claims a mutating call's signature, or refuses (401) one already spent or sent with another body;
 * call after the signature is verified and the body read within its limit (`readBody`). A read has
 * nothing to claim.
 */
export async function claimReplayGuard(c: Context<AppEnv>, now = Date.now()): Promise<void> {
  if (!isMutating(c.req.method)) return;
  const signature = parseAuthorization(c.req.header("authorization"))?.signature;
  if (!signature) return;
  const deps = c.get("deps");
  const skewMs = deps.skewSeconds * 1000;
  const stamp = c.req.header(TIMESTAMP_HEADER) ?? c.req.header("x-crusoe-timestamp");
  const signedAt = stamp ? (parseRfc3339(stamp) ?? now) : now;
  const bodyDigest = createHash("sha256").update(await c.req.text()).digest("base64url");
  const record: SignatureRecord = {
    signature: recordKey(signature, stamp, bodyDigest),
    bodyDigest,
    // The signature is accepted until its timestamp leaves the window, and no longer needed after.
    expiresAt: new Date(Math.max(signedAt, now) + skewMs),
  };
  await purgeExpired(deps, now);
  if (!(await claimSignature(deps.db, record, new Date(now)))) throw new GatewayError("unauthenticated", REPLAY_MESSAGE);
  c.set("replayClaim", { ...record, spent: false });
}

/**
 * Spends the call's claim in `tx`, the transaction making its change, or refuses (401, and the
 * change rolls back) when another use of the signature spent it first. Nothing to do for a call
 * without one (a SCIM call carries a bearer token).
 */
export async function spendReplayGuard(c: Context<AppEnv>, tx: Database): Promise<void> {
  const claim = c.get("replayClaim");
  if (!claim || claim.spent) return;
  if (!(await spendSignature(tx, claim))) throw new GatewayError("unauthenticated", REPLAY_MESSAGE);
}

/**
 * After the handler: a call that succeeded without a change through `mutate()` (one that found
 * nothing to do) spends its claim all the same, so the success is not repeated by a replay.
 */
export async function settleReplayGuard(c: Context<AppEnv>): Promise<void> {
  const claim = c.get("replayClaim");
  if (!claim || claim.spent || c.res.status >= 400) return;
  await spendSignature(c.get("deps").db, claim);
  claim.spent = true;
}

/**
 * What a use is recognised by. The upstream's own clients sign with whole-second timestamps,
 * so two of their calls to one path in one second carry the same signature: for such a
 * timestamp the body's digest is part of the key, and only the same call with the same body
 * is one use. A timestamp with a fraction of a second (ours) keys on the signature alone, so
 * it is refused with any other body.
 */
function recordKey(signature: string, stamp: string | undefined, bodyDigest: string): string {
  return stamp && WITH_FRACTION.test(stamp) ? signature : `${signature}.${bodyDigest}`;
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
