/**
 * Canonical query string of the request-signing scheme: decode every pair, sort by
 * name (a stable sort, so values of a repeated name keep their order), re-escape as
 * Go's url.QueryEscape does, join with "&".
 *
 * Every request is verified, so the common cases are spared the general work: a query
 * already in canonical form (what Go's url.Values.Encode sends) is returned as it is,
 * and escaping walks character codes instead of running regular expressions.
 */

const ASCII = /^[\x00-\x7f]*$/;

/** 1 for the characters url.QueryEscape leaves bare: A-Z a-z 0-9 - _ . ~ */
const BARE = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9_.~-]/.test(ch)) BARE[c] = 1;
}

const HEX = "0123456789ABCDEF";

/** url.QueryEscape of each ASCII character. */
const ESCAPED = Array.from({ length: 128 }, (_, c) =>
  c === 0x20 ? "+" : BARE[c] ? String.fromCharCode(c) : `%${HEX[c >> 4]}${HEX[c & 15]}`,
);

/** Go's url.QueryEscape: only A-Za-z0-9 - _ . ~ stay bare, space becomes "+". */
export function queryEscape(value: string): string {
  const n = value.length;
  let i = 0;
  while (i < n) {
    const c = value.charCodeAt(i);
    if (c >= 128 || BARE[c] === 0) break;
    i++;
  }
  if (i === n) return value;
  // Runs of bare characters are copied whole: one concatenation per run, not one per character.
  let out = value.slice(0, i);
  while (i < n) {
    const c = value.charCodeAt(i);
    if (c < 128) {
      if (BARE[c] === 1) {
        const run = i;
        while (++i < n) {
          const d = value.charCodeAt(i);
          if (d >= 128 || BARE[d] === 0) break;
        }
        out += value.slice(run, i);
      } else {
        out += ESCAPED[c];
        i++;
      }
    } else {
      // A run of non-ASCII characters: their UTF-8 bytes, as encodeURIComponent writes them.
      let j = i + 1;
      while (j < n && value.charCodeAt(j) >= 128) j++;
      out += encodeURIComponent(value.slice(i, j));
      i = j;
    }
  }
  return out;
}

/** Form decoding: "+" is a space; a malformed escape is kept as written. */
export function queryUnescape(value: string): string {
  if (value.indexOf("%") === -1 && value.indexOf("+") === -1) return value;
  // Escapes of ASCII characters decode here, byte by byte; anything else (UTF-8
  // sequences, malformed escapes) goes to decodeURIComponent, which judges them.
  let out = "";
  let last = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x2b) {
      out += `${value.slice(last, i)} `;
      last = i + 1;
    } else if (c === 0x25) {
      const hi = anyHexValue(value.charCodeAt(i + 1));
      const lo = anyHexValue(value.charCodeAt(i + 2));
      if (hi < 0 || lo < 0 || hi >= 8) return decodeOrKeep(value);
      out += value.slice(last, i) + String.fromCharCode(hi * 16 + lo);
      i += 2;
      last = i + 1;
    }
  }
  return out + value.slice(last);
}

function decodeOrKeep(value: string): string {
  const spaced = value.replaceAll("+", " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

function anyHexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x57;
  return -1;
}

/** Byte-wise (UTF-8) comparison, the order Go's sort.Strings gives. */
function compareBytes(a: string, b: string): number {
  // ASCII compares the same as UTF-16 code units and as UTF-8 bytes: no buffers needed.
  if (ASCII.test(a) && ASCII.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** Pairs of a raw query string (with or without the leading "?"), decoded, in order. */
export function parseQuery(rawQuery: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const n = rawQuery.length;
  let start = rawQuery.charCodeAt(0) === 0x3f ? 1 : 0;
  while (start < n) {
    let end = rawQuery.indexOf("&", start);
    if (end === -1) end = n;
    if (end > start) {
      const part = rawQuery.slice(start, end);
      const eq = part.indexOf("=");
      pairs.push(eq === -1 ? [queryUnescape(part), ""] : [queryUnescape(part.slice(0, eq)), queryUnescape(part.slice(eq + 1))]);
    }
    start = end + 1;
  }
  return pairs;
}

function hexValue(c: number): number {
  // Upper-case only: "%2c" decodes to "," whose canonical escape is "%2C".
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/** raw[aStart, aEnd) against raw[bStart, bEnd), by code unit (ASCII here, so by byte too). */
function compareRanges(raw: string, aStart: number, aEnd: number, bStart: number, bEnd: number): number {
  const aLength = aEnd - aStart;
  const bLength = bEnd - bStart;
  const common = aLength < bLength ? aLength : bLength;
  for (let k = 0; k < common; k++) {
    const d = raw.charCodeAt(aStart + k) - raw.charCodeAt(bStart + k);
    if (d !== 0) return d;
  }
  return aLength - bLength;
}

/**
 * Where the "=" of the part raw[start, end) is when the part is its own canonical form,
 * else -1. Canonical: "name=value", the name of bare characters only, the value of bare
 * characters, "+" (a space, re-escaped as "+") and upper-case escapes of ASCII characters
 * that are neither bare nor a space (each decodes to one byte that re-escapes the same).
 */
function canonicalEquals(raw: string, start: number, end: number): number {
  let i = start;
  while (i < end) {
    const c = raw.charCodeAt(i);
    if (c === 0x3d) break;
    if (c >= 128 || BARE[c] === 0) return -1;
    i++;
  }
  if (i === end) return -1; // a name without "=" gains one
  const eq = i++;
  while (i < end) {
    const c = raw.charCodeAt(i);
    if (c === 0x25) {
      if (i + 2 >= end) return -1;
      const hi = hexValue(raw.charCodeAt(i + 1));
      const lo = hexValue(raw.charCodeAt(i + 2));
      if (hi < 0 || lo < 0) return -1;
      const byte = hi * 16 + lo;
      if (byte >= 128 || byte === 0x20 || BARE[byte] === 1) return -1;
      i += 3;
    } else if (c === 0x2b || (c < 128 && BARE[c] === 1)) {
      i++;
    } else {
      return -1;
    }
  }
  return eq;
}

/** Whether raw[start..] is its own canonical form: every part canonical, none empty, names in order. */
function isCanonical(raw: string, start: number): boolean {
  const n = raw.length;
  let previousStart = -1;
  let previousEnd = -1;
  let i = start;
  for (;;) {
    let end = raw.indexOf("&", i);
    if (end === -1) end = n;
    const eq = canonicalEquals(raw, i, end);
    if (eq === -1) return false; // an empty part included: it would be dropped
    if (previousStart >= 0 && compareRanges(raw, previousStart, previousEnd, i, eq) > 0) return false;
    previousStart = i;
    previousEnd = eq;
    if (end === n) return true;
    i = end + 1;
  }
}

/**
 * Canonical forms of the queries seen lately. A client sends the same few queries again and
 * again (a list polled, a page read again), and every one is signed or verified: a repeated
 * query costs one lookup. Bounded twice, so a flood of distinct queries cannot grow it: at most
 * CANONICAL_MAX entries (the oldest goes first), each of a query of at most CANONICAL_LONGEST
 * characters (longer ones are computed every time).
 */
const CANONICAL = new Map<string, string>();
const CANONICAL_MAX = 256;
const CANONICAL_LONGEST = 512;

export function canonicalQuery(rawQuery: string): string {
  if (rawQuery.length > CANONICAL_LONGEST) return computeCanonicalQuery(rawQuery);
  let canonical = CANONICAL.get(rawQuery);
  if (canonical === undefined) {
    canonical = computeCanonicalQuery(rawQuery);
    if (CANONICAL.size >= CANONICAL_MAX) CANONICAL.delete(CANONICAL.keys().next().value!);
    CANONICAL.set(rawQuery, canonical);
  }
  return canonical;
}

function computeCanonicalQuery(rawQuery: string): string {
  const n = rawQuery.length;
  const start = rawQuery.charCodeAt(0) === 0x3f ? 1 : 0;
  if (start >= n) return "";
  if (isCanonical(rawQuery, start)) return start === 0 ? rawQuery : rawQuery.slice(1);
  // Each part as [decoded name, canonical text]; a part already canonical is taken as
  // written, and only the others are decoded and escaped again.
  const parts: Array<[string, string]> = [];
  let ascii = true;
  for (let i = start; i < n; ) {
    let end = rawQuery.indexOf("&", i);
    if (end === -1) end = n;
    if (end > i) {
      const eq = canonicalEquals(rawQuery, i, end);
      if (eq !== -1) {
        parts.push([rawQuery.slice(i, eq), rawQuery.slice(i, end)]);
      } else {
        const part = rawQuery.slice(i, end);
        const at = part.indexOf("=");
        const name = queryUnescape(at === -1 ? part : part.slice(0, at));
        const value = at === -1 ? "" : queryUnescape(part.slice(at + 1));
        if (ascii && !ASCII.test(name)) ascii = false;
        parts.push([name, `${queryEscape(name)}=${queryEscape(value)}`]);
      }
    }
    i = end + 1;
  }
  if (parts.length === 0) return "";
  // A stable sort, so repeated names keep their order. Names are nearly always ASCII:
  // then plain comparison is byte order, and no comparison needs to check.
  if (parts.length > 1) {
    if (ascii && parts.length <= 16) insertionSortByName(parts);
    else parts.sort(ascii ? (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0) : (a, b) => compareBytes(a[0], b[0]));
  }
  let out = parts[0]![1];
  for (let i = 1; i < parts.length; i++) out += `&${parts[i]![1]}`;
  return out;
}

/** Stable, and cheaper than Array.prototype.sort for the handful of pairs a query has. */
function insertionSortByName(pairs: Array<[string, string]>): void {
  for (let i = 1; i < pairs.length; i++) {
    const pair = pairs[i]!;
    let j = i - 1;
    while (j >= 0 && pairs[j]![0] > pair[0]) {
      pairs[j + 1] = pairs[j]!;
      j--;
    }
    pairs[j + 1] = pair;
  }
}
