import { createHash } from "node:crypto";
import type { Context } from "hono";
import { parseAuthorization, parseRfc3339, TIMESTAMP_HEADER } from "@/lib/signing";
import { isMutating } from "../audit";
import type { AppEnv, GatewayDeps } from "../context";
import { GatewayError } from "../errors";
import { errorDetail } from "@/lib/error-detail";
import type { Database } from "../store/client";
import { claimSignature, countSignatures, purgeSignatures, spendSignature, type ClaimRefusal, type SignatureRecord } from "../store/queries/request-signatures";

/**
 * A signature covers path, query, method and timestamp, not the body: within the skew
 * window a captured mutation could be sent again, even with another body. So each
 * mutating call's signature is kept in the store (a unique key, so replicas on one
 * PostgreSQL see each other's) until its timestamp leaves the window:
 *
 * - claimed before the handler runs, with the body's digest (`claimReplayGuard`);
 * - spent by the change made under it, in the change's own transaction (`spendReplayGuard`,
 *   the first statement of `mutate()`), so it is spent exactly when the change commits;
 * - spent as well by any other answer a client does not retry (`settleReplayGuard`): every
 *   status below 500 but 429.
 *
 * A spent signature is refused (401), and so is one sent again with another body. A retry of a
 * call that changed nothing and got a 5xx or no answer (a 503 while the store fails over, an
 * answer lost before the commit) carries the same signature and body, and is taken, up to
 * `MAX_ATTEMPTS` sends in all: the upstream's clients (go-retryablehttp under its Terraform
 * provider) retry that way. So a captured call can do what its signer's own retries do, no more.
 * Reads stay repeatable.
 */

const PURGE_EVERY_MS = 60_000;
const lastPurge = new WeakMap<GatewayDeps, number>();

/**
 * Sends of one signed call, its retries included: go-retryablehttp's default is 5 (a first try and
 * 4 retries); twice that leaves room for a client configured to retry more.
 */
export const MAX_ATTEMPTS = 10;

/** A use of a signature under which a change was made, or an answer given that is not to be retried. */
export const REPLAY_MESSAGE = "this signature was already used, and its call answered: it is not made again (sign a new request for another call)";

const REFUSALS: Record<ClaimRefusal, string> = {
  spent: REPLAY_MESSAGE,
  other_body: "this signature was sent before with another body: sign every request anew",
  attempts: `this signature was sent ${MAX_ATTEMPTS} times: sign a new request`,
};

/** Which of the replay guard's refusals a message is (the signature was used before: this call was not made), or null. */
export function replayRefusal(message: unknown): ClaimRefusal | null {
  const found = Object.entries(REFUSALS).find(([, text]) => text === message);
  return found ? (found[0] as ClaimRefusal) : null;
}

/** A signed timestamp outside the window around the gateway's clock (verify() says so too). */
export const OUT_OF_WINDOW_MESSAGE = `${TIMESTAMP_HEADER} is outside the allowed clock skew`;

/**
 * How long after its window a record is kept before it is purged: replicas' clocks differ, and one a little
 * behind still takes a signature another has already seen leave its window (a record purged by the one ahead
 * would let the one behind take it as new).
 */
const PURGE_MARGIN_MS = 60_000;

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
  // Judged again now that the body has come, which may have taken long (up to the server's request timeout):
  // verify() saw the headers inside the window, but the record of a use of this signature is kept only until the
  // window closes, and one past it is taken over as new. A call claimed after its window would be a replay's way in.
  if (Math.abs(now - signedAt) > skewMs) throw new GatewayError("unauthenticated", OUT_OF_WINDOW_MESSAGE);
  const bodyDigest = createHash("sha256").update(await c.req.text()).digest("base64url");
  const record: SignatureRecord = {
    signature: recordKey(signature, stamp, bodyDigest),
    bodyDigest,
    // The signature is accepted until its timestamp leaves the window, and no longer needed after.
    expiresAt: new Date(Math.max(signedAt, now) + skewMs),
  };
  await purgeExpired(deps, now);
  const refused = await claimSignature(deps.db, record, new Date(now), MAX_ATTEMPTS);
  if (refused) throw new GatewayError("unauthenticated", REFUSALS[refused]);
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
 * After the handler: an answer a client does not retry (below 500, but 429) spends the claim if its
 * change did not (a refusal, a call with nothing to change), so a captured call is not sent again and
 * again; a 5xx or 429 leaves it to the client's retry. Best effort: this answer is given either way,
 * and a claim left unspent is taken only by the same call with the same body, a few times.
 */
export async function settleReplayGuard(c: Context<AppEnv>): Promise<void> {
  const claim = c.get("replayClaim");
  const status = c.res.status;
  if (!claim || claim.spent || status >= 500 || status === 429) return;
  try {
    await spendSignature(c.get("deps").db, claim);
    claim.spent = true;
  } catch (error) {
    c.get("deps").logger.warn("signature not spent after its answer", { request_id: c.get("requestId"), status, error: errorDetail(error) });
  }
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
  await purgeSignatures(deps.db, new Date(now - PURGE_MARGIN_MS));
}

/** Signatures on record (for tests). */
export async function recordedSignatures(deps: GatewayDeps): Promise<number> {
  return countSignatures(deps.db);
}
