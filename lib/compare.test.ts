import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareCodePoints, compareCodeUnits } from "./compare";

/** The order of UTF-8 bytes is the order of code points (as PostgreSQL's "C" collation sorts). */
const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

describe("compareCodePoints", () => {
  it("puts a character above U+FFFF after one from U+E000 to U+FFFF, where code units order them the other way", () => {
    const [astral, high] = ["\u{1F600}", "\uFF21"];
    expect(compareCodeUnits(astral, high)).toBeLessThan(0);
    expect(compareCodePoints(astral, high)).toBeGreaterThan(0);
    expect(["b\u{1F600}", "b\uFF21", "a", "b", "B"].sort(compareCodePoints)).toEqual(["B", "a", "b", "b\uFF21", "b\u{1F600}"]);
  });

  it("orders any two strings as their UTF-8 bytes do", () => {
    const text = fc.string({ unit: "grapheme", maxLength: 6 });
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(byUtf8(a, b)));
      }),
      { numRuns: 2000 },
    );
  });
});
