import fc from "fast-check";
import Papa from "papaparse";
import { expect } from "vitest";
import { FORMULA_START, FORMULA_TRIGGERS } from "./csv-formula";

/** For tests: text rich in what matters to CSV (trigger characters, separators, quotes, line breaks, the prefix itself). */
export const csvishString = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...FORMULA_TRIGGERS, ",", '"', "\n", "'", " ", "1", ".", "A", "("),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
  ),
  maxLength: 12,
});

/** For tests: the rows of CSV text as a spreadsheet reads them. */
export const parseCsv = (text: string) => Papa.parse<string[]>(text.replace(/\n$/, ""), { newline: "\n", delimiter: "," }).data;

/** For tests: a written cell is safe: it does not start like a formula, or it is a prefixed original. */
export function expectSafe(written: string, original: string): void {
  if (FORMULA_START.test(original)) expect(written).toBe(`'${original}`);
  else expect(written).toBe(original);
  expect(FORMULA_START.test(written)).toBe(false);
}
