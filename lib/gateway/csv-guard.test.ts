import fc from "fast-check";
import { stringify } from "csv-stringify/sync";
import { describe, expect, it } from "vitest";
import { csvishString } from "@/lib/csv-formula.arbitraries";
import { csvRecord, type CsvKind } from "./csv";
import { formulaGuard } from "./csv-guard";

/**
 * The guard against the writer's JavaScript reference: COPY's bytes (csv-stringify
 * quotes as COPY does; a null and an empty text are both an empty cell) cut into
 * chunks anywhere, guarded, must be csvRecord's lines of the same cells.
 */
const KINDS: CsvKind[] = ["text", "number", "text", "number"];
type Row = Array<string | null>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function guarded(rows: Row[], cuts: number[]): string {
  const bytes = encoder.encode(stringify(rows.map((row) => row.map((cell) => cell ?? ""))));
  const guard = formulaGuard(KINDS);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b).concat(bytes.length)) {
    out.push(...guard.push(bytes.subarray(from, cut)));
    from = cut;
  }
  out.push(...guard.end());
  return decoder.decode(Buffer.concat(out));
}

const reference = (rows: Row[]) => rows.map((row) => csvRecord(row.map((value, i) => ({ value, kind: KINDS[i]! })))).join("");

const text = fc.option(
  fc.oneof(csvishString, fc.constantFrom("=1+1", "-", "－x", "＋", "＠a", '"=x"', "\r=", "\t", "a,b", "é", "\uFF1D")),
  { nil: null },
);
const number = fc.option(
  fc.oneof(
    fc.tuple(fc.integer({ min: -100_000, max: 100_000 }), fc.nat(9_999)).map(([i, f]) => `${i}.${f}`),
    fc.integer().map(String),
    fc.constantFrom("-Infinity", "Infinity", "NaN", "-", "-1.", "-.5", "-1.2.3", "-1,5", "+1", "=1", "- 1"),
  ),
  { nil: null },
);
const row = fc.tuple(text, number, text, number);

describe("the formula guard over COPY's bytes", () => {
  it("writes exactly what the reference writes, wherever the chunks are cut", () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 6 }), fc.array(fc.nat(400), { maxLength: 12 }), (rows, cuts) => {
        expect(guarded(rows, cuts)).toBe(reference(rows));
      }),
      { numRuns: 2_000 },
    );
  });

  it("cut at every byte of rows made to look like formulas", () => {
    const rows: Row[] = [
      ["=HYPERLINK(\"http://x\",\"y\")", "-12.50", "＝cmd", "-Infinity"],
      ["\r\n=1", "-1", '"quoted" @here', "NaN"],
      ["－", null, "plain, with comma", "-0.5"],
    ];
    const whole = reference(rows);
    expect(whole).toContain(`"'=HYPERLINK(""http://x"",""y"")",-12.50,'＝cmd,'-Infinity`);
    const length = encoder.encode(stringify(rows.map((r) => r.map((c) => c ?? "")))).length;
    for (let a = 0; a <= length; a++) expect(guarded(rows, [a])).toBe(whole);
    for (let a = 0; a <= length; a += 3) for (let b = a; b <= length; b += 5) expect(guarded(rows, [a, b, b + 1])).toBe(whole);
  });

  it("gives back a chunk with no cell to change as it came", () => {
    const chunk = encoder.encode("a,1.5,b,2\nc,-3,d,4\n");
    const out = formulaGuard(KINDS).push(chunk);
    expect(out).toHaveLength(1);
    expect(out[0]).toBe(chunk);
  });
});
