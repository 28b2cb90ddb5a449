import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { csvishString, expectSafe, parseCsv } from "@/lib/csv-formula.arbitraries";
import { csvText } from "./download";

describe("csvText, the browser's CSV writer (the audit-log export's)", () => {
  it("escapes formula cells by the gateway's rule, cell for cell", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(csvishString, { minLength: 1, maxLength: 6 }), async (cells) => {
        const text = await csvText(
          cells.map((_, i) => `c${i}`),
          [cells],
        );
        const [, parsed] = parseCsv(text);
        expect(parsed).toHaveLength(cells.length);
        cells.forEach((cell, i) => expectSafe(parsed![i]!, cell));
      }),
      { numRuns: 300 },
    );
  });
});
