import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { csvRecord } from "@/lib/gateway/csv";
import { neutraliseFormula, neutraliseNumber } from "./csv-formula";
import { csvishString, expectSafe, parseCsv as parse } from "./csv-formula.arbitraries";

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

});
