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

const piece = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_.~-]{0,8}$/),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: "grapheme", maxLength: 6 }),
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

  it("orders names by UTF-8 bytes, not UTF-16 code units", () => {
    // U+E000 is one UTF-16 unit above a surrogate but its UTF-8 bytes sort below those of U+1F600.
    expect(canonicalQuery("%F0%9F%98%80=1&%EE%80%80=2&z=3")).toBe("z=3&%EE%80%80=2&%F0%9F%98%80=1");
  });
});
