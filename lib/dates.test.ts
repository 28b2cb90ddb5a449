import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatMonth } from "./dates";

// Intl's en-US output, the definition; its ICU may write a narrow no-break space before AM/PM.
const intl = (options: Intl.DateTimeFormatOptions) => (d: Date) => new Intl.DateTimeFormat("en-US", options).format(d).replace(/\u202f/g, " ");

describe("dates written out agree with Intl (en-US, this process's zone)", () => {
  const instants = fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true });
  it("formatMonth", () => {
    fc.assert(
      fc.property(instants, (date) => {
        expect(formatMonth(date)).toBe(intl({ month: "long" })(date));
      }),
      { numRuns: 5_000 },
    );
  });
});
