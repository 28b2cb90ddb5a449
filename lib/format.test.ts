import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareCodeUnits, compareNames } from "./compare";
import { formatCompact, formatNumber, formatUsd, formatUsdCompact, type FractionDigits } from "./format";
import { formatRelative, type RelativeTimeUnit } from "./relative-time";

// The platform's own formatters, the definition these functions keep to. Node's ICU may put a
// narrow no-break space where ours writes a space; none of these formats has one.
const intl = (options: Intl.NumberFormatOptions) => new Intl.NumberFormat("en-US", options);

/** Numbers as the console meets them: whole counts, cents, quantities, ties at every digit, extremes. */
const amounts = fc.oneof(
  fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }),
  fc.integer({ min: -100_000_000, max: 100_000_000 }).map((n) => n / 100),
  fc.integer({ min: -10_000_000, max: 10_000_000 }).map((n) => (n + 0.5) / 1000),
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map((n) => n * 50),
  fc.integer({ min: 0, max: 15 }).chain((e) => fc.integer({ min: -999, max: 999 }).map((m) => m * 10 ** e)),
  fc.double({ min: -1e14, max: 1e14, noNaN: true }),
  fc.constantFrom(0, -0, 0.5, 1.5, 2.5, -2.5, 999.95, 999_950, 999_999, 1e12, 999_950_000_000),
);

const digitOptions: fc.Arbitrary<FractionDigits> = fc.oneof(
  fc.constant({}),
  fc.integer({ min: 0, max: 4 }).map((max) => ({ maximumFractionDigits: max })),
  fc
    .tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 }))
    .map(([a, b]) => ({ minimumFractionDigits: Math.min(a, b), maximumFractionDigits: Math.max(a, b) })),
);

describe("number formats agree with Intl (en-US)", () => {
  it("formatNumber", () => {
    fc.assert(
      fc.property(amounts, digitOptions, (value, options) => {
        expect(formatNumber(value, options)).toBe(intl(options).format(value));
      }),
      { numRuns: 20_000 },
    );
  });

  it("formatUsd", () => {
    fc.assert(
      fc.property(amounts, digitOptions, (value, options) => {
        expect(formatUsd(value, options)).toBe(intl({ style: "currency", currency: "USD", ...options }).format(value));
      }),
      { numRuns: 20_000 },
    );
  });

  it("formatCompact and formatUsdCompact", () => {
    fc.assert(
      fc.property(amounts, fc.integer({ min: 0, max: 2 }), (value, maximumFractionDigits) => {
        expect(formatCompact(value, { maximumFractionDigits })).toBe(intl({ notation: "compact", maximumFractionDigits }).format(value));
        expect(formatUsdCompact(value, { maximumFractionDigits })).toBe(
          intl({ style: "currency", currency: "USD", notation: "compact", maximumFractionDigits }).format(value),
        );
      }),
      { numRuns: 20_000 },
    );
  });

  it("reads as the console shows it", () => {
    expect(formatUsd(144697.4, { maximumFractionDigits: 0 })).toBe("$144,697");
    expect(formatUsd(-3)).toBe("-$3.00");
    expect(formatUsd(0.12345, { minimumFractionDigits: 2, maximumFractionDigits: 4 })).toBe("$0.1235");
    expect(formatCompact(999_960, { maximumFractionDigits: 1 })).toBe("1M");
    expect(formatUsdCompact(12_345, { maximumFractionDigits: 1 })).toBe("$12.3K");
    expect(formatNumber(1234.5)).toBe("1,234.5");
    expect(formatNumber(Number.NaN)).toBe("NaN");
  });
});

describe("formatRelative agrees with Intl.RelativeTimeFormat (en, numeric always)", () => {
  const rtf = new Intl.RelativeTimeFormat("en", { numeric: "always" });
  const units: RelativeTimeUnit[] = ["year", "month", "day", "hour", "minute", "second"];
  it("for every unit, past and future, one and many", () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -5000, max: 5000 }), fc.constantFrom(-0, 0, 1, -1, 1000, -12_345)), fc.constantFrom(...units), (value, unit) => {
        expect(formatRelative(value, unit)).toBe(rtf.format(value, unit));
      }),
      { numRuns: 5_000 },
    );
    expect(formatRelative(-3, "hour")).toBe("3 hours ago");
    expect(formatRelative(-0, "second")).toBe("0 seconds ago");
    expect(formatRelative(1, "day")).toBe("in 1 day");
  });
});

describe("comparisons without collation data", () => {
  it("orders machine strings by code unit and names case aside", () => {
    expect(["2026-11-02", "2026-10-31", "2026-11-01"].sort(compareCodeUnits)).toEqual(["2026-10-31", "2026-11-01", "2026-11-02"]);
    expect(["beta", "Alpha", "alpha", "Gamma"].sort(compareNames)).toEqual(["Alpha", "alpha", "beta", "Gamma"]);
    expect(compareNames("same", "same")).toBe(0);
  });
});

describe("the console's one date format", () => {
  it("writes dates and instants in UTC, the same in every zone", async () => {
    const { formatDate, formatDateTime } = await import("./utc-date");
    expect(formatDate("2025-03-14T23:30:00-05:00")).toBe("2025-03-15");
    expect(formatDateTime("2025-03-14T23:30:00-05:00")).toBe("2025-03-15 04:30 UTC");
    expect(formatDate(undefined)).toBe("—");
    expect(formatDateTime("not a date")).toBe("—");
  });
});
