import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toCents } from "./money";

/** The plain definition: every amount trimmed to 12 significant digits, then rounded. */
const reference = (amount: number) => Math.round(Number((amount * 100).toPrecision(12)));

describe("toCents", () => {
  it("rounds amounts whose product lands just below a half cent as the decimals they were", () => {
    expect(toCents(1.005)).toBe(101);
    expect(toCents(0.285)).toBe(29);
    expect(toCents(1.045)).toBe(105);
    expect(toCents(-1.005)).toBe(-100); // Math.round: halves go up, negative ones too
    expect(toCents(undefined)).toBe(0);
    expect(toCents(12.34)).toBe(1234);
  });

  it("agrees with trimming every amount to 12 significant digits", () => {
    const halfCents = fc.integer({ min: -10_000_000, max: 10_000_000 }).map((n) => (n + 0.5) / 100);
    const mills = fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }).map((n) => n / 1000);
    const anything = fc.double({ min: -1e9, max: 1e9, noNaN: true });
    fc.assert(
      fc.property(fc.oneof(halfCents, mills, anything), (amount) => {
        // + 0: the sign of a zero is no amount of money.
        expect(toCents(amount) + 0).toBe(reference(amount) + 0);
      }),
      { numRuns: 20_000 },
    );
  });
});
