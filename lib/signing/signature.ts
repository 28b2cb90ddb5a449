import { hash, timingSafeEqual } from "node:crypto";
import { canonicalQuery } from "./canonical-query";

export const SIGNATURE_VERSION = "1.0";
export const TIMESTAMP_HEADER = "X-Service-Timestamp";
/**
 * The name the upstream's published clients (its generated API client, its Terraform
 * provider) send the timestamp under. Verification accepts it when X-Service-Timestamp
 * is absent: only the value is signed, so the name opens nothing.
 */
export const UPSTREAM_TIMESTAMP_HEADER = "X-Crusoe-Timestamp";
export const DEFAULT_SKEW_SECONDS = 300;

export interface SigningInput {
  method: string;
  /** Path as sent, with the version prefix (e.g. /v1/locations). */
  path: string;
  /** Raw query string, with or without the leading "?". */
  query: string;
  /** Exact value of the X-Service-Timestamp header. */
  timestamp: string;
}

export function signingPayload(input: SigningInput): string {
  return `${input.path}\n${canonicalQuery(input.query)}\n${input.method.toUpperCase()}\n${input.timestamp}\n`;
}

const BASE64URL_RAW = /^[A-Za-z0-9_-]*$/;

/** Decodes a raw (unpadded) URL-safe base64 string; throws on anything else. */
export function decodeSecret(secret: string): Buffer {
  if (!BASE64URL_RAW.test(secret) || secret.length % 4 === 1) {
    throw new Error("secret is not raw URL-safe base64");
  }
  return Buffer.from(secret, "base64url");
}

/** A key's HMAC-SHA256 pads (RFC 2104): the inner one, and the outer one with room for the inner hash after it. */
interface Pads {
  inner: Uint8Array;
  outer: Buffer;
}

const BLOCK = 64;
/** The inner hash's input: the inner pad, then the payload. Grown for a longer payload. */
let scratch = Buffer.alloc(4096);

/**
 * HMAC-SHA256 (RFC 2104) of a payload with a key's pads, as two one-shot hashes:
 * H(outer pad ‖ H(inner pad ‖ payload)), in the given text encoding ("binary", that is
 * latin1: one character per byte). The bytes are createHmac's (the tests compare the two); the cost
 * is not. createHmac makes, keys and frees an HMAC context on every call, and a digest
 * handed back as a Buffer is a new ArrayBuffer made in C++ (2 µs against 0.6 for the same
 * digest as text, here): in the gateway under load createHmac took 16 µs of each signed
 * request's CPU. Written here for the budgets of `bench/results.md`'s "gateway
 * throughput" and "signing cost" rows.
 */
function hmacWithPads(pads: Pads, payload: string, encoding: "binary" | "base64url"): string {
  // At most three bytes of UTF-8 per UTF-16 unit.
  if (BLOCK + payload.length * 3 > scratch.length) scratch = Buffer.alloc(2 * (BLOCK + payload.length * 3));
  scratch.set(pads.inner, 0);
  const length = BLOCK + scratch.write(payload, BLOCK, "utf8");
  // Used and done with before anything can await, like the outer pad's room for the inner hash.
  pads.outer.write(hash("sha256", scratch.subarray(0, length), "binary"), BLOCK, "latin1");
  return hash("sha256", pads.outer, encoding);
}

/**
 * Secrets seen lately, with their pads: every request of a client signs with the same secret,
 * so verification decodes it once. Bounded: the oldest entry goes first. Keyed by the secret
 * itself, so a rotated key can never match a stale entry.
 */
const PADS = new Map<string, Pads>();
const PADS_MAX = 1024;

/** The pads of a secret (raw URL-safe base64); throws when it is not one. */
function padsOf(secret: string): Pads {
  let pads = PADS.get(secret);
  if (!pads) {
    let key: Uint8Array = decodeSecret(secret);
    // A key longer than the block is hashed first; a shorter one is padded with zeros (RFC 2104).
    if (key.length > BLOCK) key = hash("sha256", key, "buffer");
    const inner = new Uint8Array(BLOCK).fill(0x36);
    const outer = Buffer.alloc(BLOCK + 32).fill(0x5c, 0, BLOCK);
    for (let i = 0; i < key.length; i++) {
      inner[i] = inner[i]! ^ key[i]!;
      outer[i] = outer[i]! ^ key[i]!;
    }
    pads = { inner, outer };
    if (PADS.size >= PADS_MAX) PADS.delete(PADS.keys().next().value!);
    PADS.set(secret, pads);
  }
  return pads;
}

/** The signature of a request: raw URL-safe base64 of HMAC-SHA256(secret, payload). */
export function sign(secret: string, input: SigningInput): string {
  return hmacWithPads(padsOf(secret), signingPayload(input), "base64url");
}

export function authorizationHeader(accessKeyId: string, signature: string): string {
  return `Bearer ${SIGNATURE_VERSION}:${accessKeyId}:${signature}`;
}

/**
 * Timestamps this process has signed with, per millisecond. The gateway refuses a
 * mutating call's signature the second time, and two calls to one path in one
 * millisecond would otherwise sign alike: the second gets the same millisecond told
 * apart in its micro- and nanosecond digits (RFC 3339 allows any fraction).
 */
const ISSUED = new Map<number, number>();
const ISSUED_MAX = 4096;

function uniqueTimestamp(now: Date): string {
  const ms = now.getTime();
  const before = ISSUED.get(ms) ?? 0;
  ISSUED.set(ms, before + 1);
  if (ISSUED.size > ISSUED_MAX) ISSUED.delete(ISSUED.keys().next().value!);
  const iso = now.toISOString();
  return before === 0 ? iso : `${iso.slice(0, -1)}${String(before % 1_000_000).padStart(6, "0")}Z`;
}

/** Headers to add to a request: the timestamp and the Authorization value. */
export function signedHeaders(
  credentials: { accessKeyId: string; secretKey: string },
  request: { method: string; url: string | URL },
  now: Date = new Date(),
): Record<string, string> {
  const url = typeof request.url === "string" ? new URL(request.url) : request.url;
  const timestamp = uniqueTimestamp(now);
  const signature = sign(credentials.secretKey, {
    method: request.method,
    path: url.pathname,
    query: url.search,
    timestamp,
  });
  return {
    [TIMESTAMP_HEADER]: timestamp,
    Authorization: authorizationHeader(credentials.accessKeyId, signature),
  };
}

export interface ParsedAuthorization {
  version: string;
  accessKeyId: string;
  signature: string;
}

const WHITESPACE = /\s/;

/** Parses "Bearer <version>:<access_key_id>:<signature>"; null when malformed. */
/** The longest access key id a request may name: issued ids are far shorter (a prefix and 20 characters). */
export const MAX_ACCESS_KEY_ID = 64;

export function parseAuthorization(header: string | null | undefined): ParsedAuthorization | null {
  if (!header) return null;
  // Every request carries one: found by position, the one pattern test left for whitespace.
  const value = WHITESPACE.test(header[0]!) || WHITESPACE.test(header[header.length - 1]!) ? header.trim() : header;
  if (!value.startsWith("Bearer ")) return null;
  const first = value.indexOf(":", 7);
  const second = first === -1 ? -1 : value.indexOf(":", first + 1);
  if (second === -1 || value.indexOf(":", second + 1) !== -1) return null;
  if (first === 7 || second === first + 1 || second === value.length - 1 || WHITESPACE.test(value.slice(7))) return null;
  // No key id is longer (AK + 20): a longer one is looked up nowhere, so it fills no cache of lookups.
  if (second - first - 1 > MAX_ACCESS_KEY_ID) return null;
  return { version: value.slice(7, first), accessKeyId: value.slice(first + 1, second), signature: value.slice(second + 1) };
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** The written-out parse: the pattern, the field ranges, then Date.parse (which has the last word). */
function parseRfc3339Slow(value: string): number | null {
  const m = RFC3339.exec(value);
  if (!m) return null;
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const h = Number(m[4]);
  const mi = Number(m[5]);
  const s = Number(m[6]);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return null;
  // Date.parse accepts at most millisecond precision; trim longer fractions. The usual
  // form (upper-case T and Z, at most milliseconds) goes to Date.parse as it is.
  const fraction = m[7];
  const usual = (fraction === undefined || fraction.length <= 4) && value[10] === "T" && !value.endsWith("z");
  const ms = Date.parse(usual ? value : value.replace(/(\.\d{3})\d+/, "$1").replace(/t/, "T").replace(/z$/, "Z"));
  return Number.isNaN(ms) ? null : ms;
}

/** The value of two ASCII digits at value[i], value[i + 1]; -1 when either is not a digit. */
function twoDigits(value: string, i: number): number {
  const a = value.charCodeAt(i) - 0x30;
  const b = value.charCodeAt(i + 1) - 0x30;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** Milliseconds since the epoch of an RFC 3339 timestamp; null when it is not one. */
export function parseRfc3339(value: string): number | null {
  // Every request carries one: read the fields by position and add them up, leaving only
  // the rare shapes (two-digit years, leap seconds, odd offsets) to the general parse.
  const n = value.length;
  const century = twoDigits(value, 0);
  const yy = twoDigits(value, 2);
  const mo = twoDigits(value, 5);
  const d = twoDigits(value, 8);
  const h = twoDigits(value, 11);
  const mi = twoDigits(value, 14);
  const s = twoDigits(value, 17);
  const t = value.charCodeAt(10) | 0x20;
  if (
    n < 20 || century < 1 || yy < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 ||
    value.charCodeAt(4) !== 0x2d || value.charCodeAt(7) !== 0x2d || t !== 0x74 || value.charCodeAt(13) !== 0x3a || value.charCodeAt(16) !== 0x3a
  ) {
    return parseRfc3339Slow(value);
  }
  let i = 19;
  let ms = 0;
  if (value.charCodeAt(i) === 0x2e) {
    const first = ++i;
    while (i < n && i - first < 9) {
      const digit = value.charCodeAt(i) - 0x30;
      if (digit < 0 || digit > 9) break;
      // Milliseconds are the first three digits; further ones are dropped, as the general parse does.
      if (i - first < 3) ms += digit * (i - first === 0 ? 100 : i - first === 1 ? 10 : 1);
      i++;
    }
    if (i === first) return null;
  }
  let offsetMinutes = 0;
  const zone = value.charCodeAt(i);
  if ((zone | 0x20) === 0x7a) {
    if (i + 1 !== n) return null;
  } else if (zone === 0x2b || zone === 0x2d) {
    const oh = twoDigits(value, i + 1);
    const om = twoDigits(value, i + 4);
    if (i + 6 !== n || value.charCodeAt(i + 3) !== 0x3a || oh < 0 || om < 0) return null;
    if (oh > 23 || om > 59) return parseRfc3339Slow(value);
    offsetMinutes = (zone === 0x2b ? 1 : -1) * (oh * 60 + om);
  } else {
    return null;
  }
  return Date.UTC(century * 100 + yy, mo - 1, d, h, mi, s, ms) - offsetMinutes * 60_000;
}

export type VerifyFailure =
  | "missing_authorization"
  | "malformed_authorization"
  | "unsupported_signature_version"
  | "missing_timestamp"
  | "conflicting_timestamps"
  | "invalid_timestamp"
  | "timestamp_out_of_window"
  | "unknown_key"
  | "bad_signature";

export type VerifyResult<K> = { ok: true; key: K } | { ok: false; reason: VerifyFailure };

export interface VerifyOptions<K> {
  authorization: string | null | undefined;
  /** The X-Service-Timestamp header; null or undefined when the request has none. */
  timestamp: string | null | undefined;
  /** The X-Crusoe-Timestamp header, read when X-Service-Timestamp is absent; both present must agree. */
  upstreamTimestamp?: string | null | undefined;
  method: string;
  path: string;
  query: string;
  /** Resolves an access key id to its secret (raw URL-safe base64) and whatever the caller needs. */
  lookupKey: (accessKeyId: string) => Promise<{ secret: string; key: K } | null>;
  skewSeconds?: number;
  now?: number;
}

/**
 * A digest's 32 bytes in unpadded base64url, written as an encoder writes them: 43 characters, the last carrying 4 bits
 * and two zero bits. Decoding ignores those two, so four spellings would verify as one, and a replay guard that keeps
 * what was sent would take each of them as a new call.
 */
const SIGNATURE_SHAPE = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
const GIVEN = Buffer.alloc(32);
const EXPECTED = Buffer.alloc(32);

/**
 * The timestamp a request is signed with: X-Service-Timestamp, or X-Crusoe-Timestamp
 * when the first is absent. Both sent with different values is refused rather than
 * one chosen, so no two readers of one request can disagree on what was signed.
 */
export function requestTimestamp(
  timestamp: string | null | undefined,
  upstreamTimestamp: string | null | undefined,
): { ok: true; value: string | null } | { ok: false } {
  if (upstreamTimestamp === null || upstreamTimestamp === undefined) return { ok: true, value: timestamp ?? null };
  if (timestamp === null || timestamp === undefined) return { ok: true, value: upstreamTimestamp };
  return timestamp === upstreamTimestamp ? { ok: true, value: timestamp } : { ok: false };
}

/**
 * Verifies a signed request. Order: header shape, version, timestamp window, key
 * lookup, HMAC, then a constant-time compare of two fixed-length digests.
 */
export async function verify<K>(opts: VerifyOptions<K>): Promise<VerifyResult<K>> {
  if (!opts.authorization) return { ok: false, reason: "missing_authorization" };
  const auth = parseAuthorization(opts.authorization);
  if (!auth) return { ok: false, reason: "malformed_authorization" };
  if (auth.version !== SIGNATURE_VERSION) return { ok: false, reason: "unsupported_signature_version" };
  if (!SIGNATURE_SHAPE.test(auth.signature)) return { ok: false, reason: "malformed_authorization" };
  let timestamp = opts.timestamp;
  if (opts.upstreamTimestamp !== null && opts.upstreamTimestamp !== undefined) {
    const chosen = requestTimestamp(timestamp, opts.upstreamTimestamp);
    if (!chosen.ok) return { ok: false, reason: "conflicting_timestamps" };
    timestamp = chosen.value;
  }
  if (!timestamp) return { ok: false, reason: "missing_timestamp" };
  const at = parseRfc3339(timestamp);
  if (at === null) return { ok: false, reason: "invalid_timestamp" };
  const skewMs = (opts.skewSeconds ?? DEFAULT_SKEW_SECONDS) * 1000;
  if (Math.abs((opts.now ?? Date.now()) - at) > skewMs) return { ok: false, reason: "timestamp_out_of_window" };

  const found = await opts.lookupKey(auth.accessKeyId);
  if (!found) return { ok: false, reason: "unknown_key" };
  let pads: Pads;
  try {
    pads = padsOf(found.secret);
  } catch {
    return { ok: false, reason: "unknown_key" };
  }
  const expected = hmacWithPads(pads, signingPayload({ method: opts.method, path: opts.path, query: opts.query, timestamp }), "binary");
  // 43 characters of the URL-safe alphabet (checked above) always decode to 32 bytes; both digests
  // go into buffers kept for the purpose, used and done with before anything can await.
  const written = GIVEN.write(auth.signature, 0, GIVEN.length, "base64url");
  EXPECTED.write(expected, 0, EXPECTED.length, "latin1");
  if (written !== EXPECTED.length || !timingSafeEqual(GIVEN, EXPECTED)) {
    return { ok: false, reason: "bad_signature" };
  }
  return { ok: true, key: found.key };
}
