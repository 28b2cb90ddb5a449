/**
 * Canonical query string of the request-signing scheme: decode every pair, sort by
 * name (a stable sort, so values of a repeated name keep their order), re-escape as
 * Go's url.QueryEscape does, join with "&".
 */

const BARE = /^[A-Za-z0-9_.~-]*$/;
const ASCII = /^[\x00-\x7f]*$/;

/** Go's url.QueryEscape: only A-Za-z0-9 - _ . ~ stay bare, space becomes "+". */
export function queryEscape(value: string): string {
  // Most names and values need no escaping: every request is verified, so skip the work.
  if (BARE.test(value)) return value;
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+");
}

/** Form decoding: "+" is a space; a malformed escape is kept as written. */
export function queryUnescape(value: string): string {
  if (!value.includes("%") && !value.includes("+")) return value;
  const spaced = value.replace(/\+/g, " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** Byte-wise (UTF-8) comparison, the order Go's sort.Strings gives. */
function compareBytes(a: string, b: string): number {
  // ASCII compares the same as UTF-16 code units and as UTF-8 bytes: no buffers needed.
  if (ASCII.test(a) && ASCII.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** Pairs of a raw query string (with or without the leading "?"), decoded, in order. */
export function parseQuery(rawQuery: string): Array<[string, string]> {
  const raw = rawQuery.startsWith("?") ? rawQuery.slice(1) : rawQuery;
  if (raw === "") return [];
  const pairs: Array<[string, string]> = [];
  for (const part of raw.split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const name = eq === -1 ? part : part.slice(0, eq);
    const value = eq === -1 ? "" : part.slice(eq + 1);
    pairs.push([queryUnescape(name), queryUnescape(value)]);
  }
  return pairs;
}

export function canonicalQuery(rawQuery: string): string {
  const pairs = parseQuery(rawQuery);
  if (pairs.length === 0) return "";
  // Array.prototype.sort is stable, so repeated names keep their order. Names are
  // nearly always ASCII: then one check up front spares a check per comparison.
  const ascii = pairs.every(([name]) => ASCII.test(name));
  pairs.sort(ascii ? (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0) : (a, b) => compareBytes(a[0], b[0]));
  let out = "";
  for (let i = 0; i < pairs.length; i++) {
    const [name, value] = pairs[i]!;
    out += `${i === 0 ? "" : "&"}${queryEscape(name)}=${queryEscape(value)}`;
  }
  return out;
}
