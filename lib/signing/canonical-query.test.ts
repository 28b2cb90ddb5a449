import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalQuery } from "./canonical-query";

/** The scheme as written, with no shortcut: the fast paths of canonicalQuery must agree with it. */
function reference(rawQuery: string): string {
  const raw = rawQuery.startsWith("?") ? rawQuery.slice(1) : rawQuery;
  const unescape = (v: string) => {
    const spaced = v.replace(/\+/g, " ");
    try {
      return decodeURIComponent(spaced);
    } catch {
      return spaced;
    }
  };
  const escape = (v: string) =>
    encodeURIComponent(v)
      .replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)
      .replace(/%20/g, "+");
  const pairs = raw
    .split("&")
    .filter((part) => part !== "")
    .map((part): [string, string] => {
      const eq = part.indexOf("=");
      return eq === -1 ? [unescape(part), ""] : [unescape(part.slice(0, eq)), unescape(part.slice(eq + 1))];
    });
  pairs.sort((a, b) => Buffer.compare(Buffer.from(a[0], "utf8"), Buffer.from(b[0], "utf8")));
  return pairs.map(([n, v]) => `${escape(n)}=${escape(v)}`).join("&");
}

/** A percent escape of any byte, in either case, or a malformed one. */
const escape = fc.oneof(
  fc.integer({ min: 0, max: 255 }).chain((byte) =>
    fc.constantFrom(`%${byte.toString(16).padStart(2, "0").toUpperCase()}`, `%${byte.toString(16).padStart(2, "0")}`),
  ),
  fc.constantFrom("%", "%4", "%G1", "%%41"),
);

const piece = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_.~-]{0,8}$/),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: "grapheme", maxLength: 6 }),
  fc.array(fc.oneof(escape, fc.constantFrom("a", "+", "Z", "~")), { maxLength: 6 }).map((parts) => parts.join("")),
  fc.constantFrom("a+b", "%20", "%zz", "%C3%A9", "caf%C3%A9%20%E2%98%81", "%F0%9F%98%80", "\uE000", "\uD83D\uDE00", "Z", "é"),
);
const query = fc.array(fc.tuple(piece, piece, fc.boolean()), { maxLength: 8 }).map((pairs) =>
  pairs.map(([n, v, escaped]) => (escaped ? `${encodeURIComponent(n)}=${encodeURIComponent(v)}` : `${n.replace(/[&=#]/g, "")}=${v.replace(/[&#]/g, "")}`)).join("&"),
);

describe("canonicalQuery", () => {
  it("agrees with the scheme written out without shortcuts", () => {
    fc.assert(
      fc.property(query, (q) => {
        expect(canonicalQuery(q)).toBe(reference(q));
        expect(canonicalQuery(`?${q}`)).toBe(reference(`?${q}`));
      }),
      { numRuns: 2000 },
    );
  });

  it("returns a query already in canonical form as it is (what Go's url.Values.Encode sends)", () => {
    fc.assert(
      fc.property(query, (q) => {
        const canonical = reference(q);
        expect(canonicalQuery(canonical)).toBe(canonical);
        expect(canonicalQuery(`?${canonical}`)).toBe(canonical);
      }),
      { numRuns: 2000 },
    );
    // Comma lists as Go escapes them, spaces as "+", names in order.
    const go = "actions=Create%2CUpdate&actor_types=Platform+Admin&limit=20&project_ids=a%2Cb";
    expect(canonicalQuery(`?${go}`)).toBe(go);
  });

  it("re-orders and re-escapes what is not canonical", () => {
    expect(canonicalQuery("b=1&a=2")).toBe("a=2&b=1");
    expect(canonicalQuery("a=%2c")).toBe("a=%2C");
    expect(canonicalQuery("a=%41")).toBe("a=A");
    expect(canonicalQuery("a=%20")).toBe("a=+");
    expect(canonicalQuery("a")).toBe("a=");
    expect(canonicalQuery("a=1&")).toBe("a=1");
    expect(canonicalQuery("a=b=c")).toBe("a=b%3Dc");
    expect(canonicalQuery("a=%C3")).toBe("a=%25C3");
  });

  it("answers a repeated query the same, before and after many others have passed through its memory", () => {
    const queries = Array.from({ length: 1000 }, (_, i) => `?z=${i}&a=x%20y&m=%2c${i % 7}`);
    const first = queries.map((q) => canonicalQuery(q));
    // The first ones have long left the memory (it holds a few hundred): worked out again, the same.
    queries.forEach((q, i) => expect(canonicalQuery(q)).toBe(first[i]));
    queries.forEach((q, i) => expect(first[i]).toBe(reference(q)));
    // Longer than the memory takes: worked out every time, and right.
    const long = `?b=${"x".repeat(600)}&a=1`;
    expect(canonicalQuery(long)).toBe(`a=1&b=${"x".repeat(600)}`);
    expect(canonicalQuery(long)).toBe(`a=1&b=${"x".repeat(600)}`);
  });

  it("orders names by UTF-8 bytes, not UTF-16 code units", () => {
    // U+E000 is one UTF-16 unit above a surrogate but its UTF-8 bytes sort below those of U+1F600.
    expect(canonicalQuery("%F0%9F%98%80=1&%EE%80%80=2&z=3")).toBe("z=3&%EE%80%80=2&%F0%9F%98%80=1");
  });
});
