import fc from "fast-check";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { csvText } from "@/components/common/download";
import { csvRecord } from "@/lib/gateway/csv";
import { FORMULA_START, neutraliseFormula, neutraliseNumber } from "./csv-formula";
import { csvishString } from "./csv-formula.arbitraries";

const parse = (text: string) => Papa.parse<string[]>(text.replace(/\n$/, ""), { newline: "\n", delimiter: "," }).data;

/** A written cell is safe: it does not start like a formula, or it is a prefixed original. */
function expectSafe(written: string, original: string) {
  if (FORMULA_START.test(original)) expect(written).toBe(`'${original}`);
  else expect(written).toBe(original);
  expect(FORMULA_START.test(written)).toBe(false);
}

describe("the CSV formula rule", () => {
  it("prefixes exactly the cells that start with = + - @ a tab or a carriage return (and their full-width forms)", () => {
    for (const ch of ["=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠"]) expect(neutraliseFormula(`${ch}1`)).toBe(`'${ch}1`);
    expect(neutraliseFormula("@SUM(1+1)*cmd|' /C calc'!A1")).toBe("'@SUM(1+1)*cmd|' /C calc'!A1");
    // Multi-line cells too (papaparse's own default pattern lets "=…\n…" through).
    expect(neutraliseFormula("=1+2\nx")).toBe("'=1+2\nx");
    for (const safe of ["", "a=1", " =1", "'=1", "1-2", "gpu-hours"]) expect(neutraliseFormula(safe)).toBe(safe);
  });

  it("leaves a number column's plain decimal numbers as they are, and nothing else", () => {
    for (const n of ["-12.50", "-5", "0", "12.5", "-0.000001"]) expect(neutraliseNumber(n)).toBe(n);
    for (const n of ["-Infinity", "-1+2", "+12", "-12.", "-.5", "-1e5", "=1"]) expect(neutraliseNumber(n)).toBe(`'${n}`);
  });

  it("server writer: every parsed cell is its original, or its original behind a ' when that starts like a formula", () => {
    fc.assert(
      fc.property(fc.array(csvishString, { minLength: 1, maxLength: 6 }), (cells) => {
        // A first cell of its own: a record of one empty cell is an empty line.
        const [parsed] = parse(csvRecord([{ value: "x", kind: "text" }, ...cells.map((value) => ({ value, kind: "text" as const }))]));
        expect(parsed).toHaveLength(cells.length + 1);
        cells.forEach((cell, i) => expectSafe(parsed![i + 1]!, cell));
      }),
      { numRuns: 500 },
    );
  });

  it("server writer, number columns: plain decimals round-trip, anything else follows the text rule", () => {
    const decimal = fc.tuple(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.nat(999_999)).map(([i, f]) => `${i}.${String(f).padStart(6, "0")}`);
    fc.assert(
      fc.property(fc.oneof(decimal, csvishString), (value) => {
        const [parsed] = parse(csvRecord([{ value: "x", kind: "text" }, { value, kind: "number" }]));
        if (/^-?\d+(\.\d+)?$/.test(value)) expect(parsed![1]).toBe(value);
        else expectSafe(parsed![1]!, value);
      }),
      { numRuns: 500 },
    );
  });

  it("browser writer (the audit-log export's): the same rule, cell for cell", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(csvishString, { minLength: 1, maxLength: 6 }), async (cells) => {
        const text = await csvText(
          cells.map((_, i) => `c${i}`),
          [cells],
        );
        const [, parsed] = parse(text);
        expect(parsed).toHaveLength(cells.length);
        cells.forEach((cell, i) => expectSafe(parsed![i]!, cell));
      }),
      { numRuns: 300 },
    );
  });
});
