import type { Context, MiddlewareHandler } from "hono";
import { TIMESTAMP_HEADER, UPSTREAM_TIMESTAMP_HEADER, verify } from "@/lib/signing";
import { Access } from "../authz";
import type { AppEnv, Caller, GatewayDeps } from "../context";
import { decrypt } from "../crypto";
import { GatewayError } from "../errors";
import { findActiveApiKey } from "../store/queries/api-keys";
import { touchLastActive } from "../store/queries/people";
import { isMutating } from "../audit";
import { findOperation, routedPath } from "../router";
import { claimReplayGuard, OUT_OF_WINDOW_MESSAGE, settleReplayGuard } from "./replay";
import { readBody } from "./request-id";

const MESSAGES: Record<string, string> = {
  missing_authorization: "missing Authorization header",
  malformed_authorization: "malformed Authorization header: expected Bearer 1.0:<access_key_id>:<signature>",
  unsupported_signature_version: "unsupported signature version: expected 1.0",
  missing_timestamp: `missing ${TIMESTAMP_HEADER} header`,
  conflicting_timestamps: `${TIMESTAMP_HEADER} and ${UPSTREAM_TIMESTAMP_HEADER} differ`,
  invalid_timestamp: `${TIMESTAMP_HEADER} is not an RFC 3339 timestamp`,
  timestamp_out_of_window: OUT_OF_WINDOW_MESSAGE,
  // One answer for both, so a caller cannot tell which access key ids exist.
  unknown_key: "invalid access key or signature",
  bad_signature: "invalid access key or signature",
};

/**
 * Anything the WHATWG URL parser would rewrite in a path or query: percent signs (%2e segments),
 * dot segments, quotes, backslashes, fragments, characters outside printable ASCII.
 */
const NEEDS_PARSER = /[%'\\#"<>`{}|^\s]|[^\x21-\x7e]|\/\.\.?(?:[/?]|$)/;

/**
 * The path and query of an absolute URL exactly as `new URL(url)` gives them (pathname, search),
 * without building a URL object for the plain ones every API call is: the URL a request arrives
 * with is already in its parsed form, so only what the parser would rewrite goes through it.
 */
export function pathAndQuery(url: string): { path: string; query: string } {
  const scheme = url.indexOf("://");
  const start = scheme === -1 ? -1 : url.indexOf("/", scheme + 3);
  const target = start === -1 ? "" : url.slice(start);
  if (scheme === -1 || target === "" || NEEDS_PARSER.test(target) || NEEDS_PARSER.test(url.slice(0, start))) {
    const parsed = new URL(url);
    return { path: parsed.pathname, query: parsed.search };
  }
  const q = target.indexOf("?");
  if (q === -1) return { path: target, query: "" };
  const query = target.slice(q);
  return { path: target.slice(0, q), query: query === "?" ? "" : query };
}

/**
 * Whether every percent-escape of the query is whole and spells UTF-8. One that is not would be
 * signed as the text written while the routes read the value undecoded: two readings of one
 * request, so it is refused (400) rather than guessed at.
 */
function decodable(query: string): boolean {
  try {
    decodeURIComponent(query);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the operation asked may read its query: one that declares a 400 (or answers anything with its error status
 * object). One that declares neither takes no query parameters (`GET /locations`: 401 and 500 only), so a malformed
 * escape in its query is read by nothing but the signature (which signs it as written), and refusing it would be an
 * answer the operation does not declare. A path that is no operation is refused as before.
 */
function readsQuery(c: Context<AppEnv>): boolean {
  const op = findOperation(c.req.method, routedPath(c));
  return !op || op.hasDefault || op.statuses.has(400);
}

type KeyLookup = (accessKeyId: string) => Promise<{ secret: string; key: Caller } | null>;
type CachedKey = { secret: string; key: Caller; expiresAt: number | null };

/** One lookup function per gateway, made on its first request, not one per request. */
const lookups = new WeakMap<GatewayDeps, KeyLookup>();

function keyLookup(deps: GatewayDeps): KeyLookup {
  let lookup = lookups.get(deps);
  if (!lookup) {
    const { db, reads, masterKey } = deps;
    // Until the store changes (a revocation is a change), a key's lookup is answered from memory.
    lookup = async (accessKeyId) => {
      const found = await reads.get(`key:${accessKeyId}`, async (): Promise<CachedKey | null> => {
        const row = await findActiveApiKey(db, accessKeyId);
        if (!row) return null;
        const key: Caller = { userId: row.userId, email: row.email, accessKeyId, ...(row.organizationId ? { organizationId: row.organizationId } : {}) };
        return { secret: decrypt(masterKey, row.secretCiphertext), key, expiresAt: row.expiresAt?.getTime() ?? null };
        // An unknown key is not kept: anyone may ask for any number of them, and each would push out a known one.
      }, (cached) => cached !== null);
      // Expiry is a moment, not a change to the store: checked at each use, the cached answer included.
      if (!found || (found.expiresAt !== null && found.expiresAt <= Date.now())) return null;
      return found;
    };
    lookups.set(deps, lookup);
  }
  return lookup;
}

/** How often a person's last activity is written: at most once a minute per person and process. */
export const ACTIVITY_INTERVAL_MS = 60_000;
const lastTouched = new WeakMap<GatewayDeps, Map<string, number>>();

/**
 * Marks the caller's memberships active. Cheap: a write at most once a minute per user (kept in
 * memory per store), and that write only touches memberships whose mark is over a minute old.
 */
function noteActivity(deps: GatewayDeps, caller: Caller): Promise<void> | undefined {
  let seen = lastTouched.get(deps);
  if (!seen) lastTouched.set(deps, (seen = new Map()));
  const now = Date.now();
  // A key that acts in one organization alone (an SSO session's) marks that one; another key of the person, every other.
  const who = `${caller.userId}|${caller.organizationId ?? ""}`;
  const last = seen.get(who);
  // Nothing to wait for (no promise) on nearly every request.
  if (last !== undefined && now - last < ACTIVITY_INTERVAL_MS) return undefined;
  seen.set(who, now);
  if (seen.size > 10_000) seen.clear();
  return touchLastActive(deps.db, caller.userId, caller.organizationId, new Date(now), new Date(now - ACTIVITY_INTERVAL_MS));
}

/** Checks the request signature; on success the caller and their access are in the context. */
export const verifySignature: MiddlewareHandler<AppEnv> = async (c, next) => {
  const deps = c.get("deps");
  const { path, query } = pathAndQuery(c.req.url);
  if (query.includes("%") && !decodable(query) && readsQuery(c)) throw new GatewayError("bad_request", "query: a percent-escape is malformed or not UTF-8");
  const result = await verify<Caller>({
    authorization: c.req.header("authorization"),
    timestamp: c.req.header(TIMESTAMP_HEADER),
    upstreamTimestamp: c.req.header(UPSTREAM_TIMESTAMP_HEADER),
    method: c.req.method,
    path,
    query,
    skewSeconds: deps.skewSeconds,
    lookupKey: keyLookup(deps),
  });
  if (!result.ok) throw new GatewayError("unauthenticated", MESSAGES[result.reason] ?? "authentication failed");
  const key = result.key;
  if (!isMutating(c.req.method)) return admit(c, deps, key, next);
  // A call that may change something: its body is read now that the caller is known (never
  // before: a stranger's upload holds nothing of the gateway's), within the limit, and then
  // its signature is claimed with the body's digest; its change spends it (middleware/replay.ts).
  return readBody(c, async () => {
    // The body may have taken long to come: a key revoked or expired meanwhile changes nothing (a cached
    // lookup, cleared by the revocation), and the signature's window is judged again as it is claimed.
    if (!(await keyLookup(deps)(key.accessKeyId))) throw new GatewayError("unauthenticated", MESSAGES.unknown_key!);
    await claimReplayGuard(c);
    await admit(c, deps, key, next);
    await settleReplayGuard(c);
  });
};

/** The caller and their access in the context, their activity noted, and the call let through. */
function admit(c: Context<AppEnv>, deps: GatewayDeps, key: Caller, next: () => Promise<void>): Promise<void> {
  c.set("caller", key);
  c.set("access", new Access(deps.db, deps.reads, key));
  const activity = noteActivity(deps, key);
  return activity ? activity.then(next) : next();
}
