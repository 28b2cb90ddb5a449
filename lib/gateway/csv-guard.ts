import { FORMULA_TRIGGERS } from "@/lib/csv-formula";
import type { CsvKind } from "./csv";

/**
 * The formula rule (lib/csv-formula.ts) applied to CSV bytes as they stream: the
 * export's COPY writes the cells as they are, quoted as csv-stringify quotes, and
 * this puts a `'` in front of each cell that starts like a formula (inside its
 * quotes when quoted). A cell of a number column is left as it is when it is a plain
 * decimal (PLAIN_NUMBER). The output is exactly what csvRecord writes of the same
 * cells (lib/gateway/csv-guard.test.ts cuts the input at every place).
 *
 * Our own code, for the CSV export's budget (bench: "CSV export vs COPY"): written
 * in the select, the rule cost the server 15–40 % of its COPY time on the one core
 * it writes from; here it runs on the gateway's core as the bytes pass, one look per
 * cell start, and a chunk with no cell to change goes out as it came.
 */

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const MINUS = 0x2d;
const DOT = 0x2e;
const PREFIX = Uint8Array.of(0x27);

const asciiTrigger = new Uint8Array(128);
const wideTriggers: Uint8Array[] = [];
for (const ch of FORMULA_TRIGGERS) {
  const code = ch.codePointAt(0)!;
  if (code < 0x80) asciiTrigger[code] = 1;
  else wideTriggers.push(new TextEncoder().encode(ch));
}

const isDigit = (b: number) => b >= 0x30 && b <= 0x39;

type Verdict = "prefix" | "as-is" | "more";

// Where the scan is: at a cell's start, in an unquoted cell, in a quoted one, or just after a quote in a quoted one.
const START = 0;
const PLAIN = 1;
const QUOTED = 2;
const AFTER_QUOTE = 3;

/** Whether the cell whose text starts at `at` needs the prefix, or the bytes so far cannot tell. */
function verdict(bytes: Uint8Array, at: number, quoted: boolean, kind: CsvKind | undefined): Verdict {
  if (at >= bytes.length) return "more";
  const b = bytes[at]!;
  if (kind === "number" && !quoted && b === MINUS) return plainNumberAfterMinus(bytes, at + 1);
  if (b < 0x80) return asciiTrigger[b] ? "prefix" : "as-is";
  for (const wide of wideTriggers) {
    let k = 0;
    while (k < wide.length && at + k < bytes.length && bytes[at + k] === wide[k]) k++;
    if (k === wide.length) return "prefix";
    if (at + k === bytes.length) return "more";
  }
  return "as-is";
}

/** An unquoted cell from after its minus to its end: a plain decimal ("as-is") or not ("prefix"). */
function plainNumberAfterMinus(bytes: Uint8Array, from: number): Verdict {
  // 0: before the first digit, 1: in the whole digits, 2: just after the dot, 3: in the fraction.
  let stage = 0;
  for (let i = from; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === COMMA || b === LF) return stage === 1 || stage === 3 ? "as-is" : "prefix";
    if (isDigit(b)) stage = stage === 0 ? 1 : stage === 2 ? 3 : stage;
    else if (b === DOT && stage === 1) stage = 2;
    else return "prefix";
  }
  return "more";
}

export interface FormulaGuard {
  /** The next bytes of the COPY; returns what may go out now (a few bytes of an undecided cell wait for the next). */
  push(chunk: Uint8Array): Uint8Array[];
  /** What was still waiting when the COPY ended. */
  end(): Uint8Array[];
}

/** A guard for a COPY of cells of these kinds, in this order, one line per row. */
export function formulaGuard(kinds: readonly CsvKind[]): FormulaGuard {
  let column = 0;
  let state = START;
  let waiting: Uint8Array | null = null;
  return {
    push(chunk) {
      let bytes = chunk;
      if (waiting) {
        bytes = new Uint8Array(waiting.length + chunk.length);
        bytes.set(waiting);
        bytes.set(chunk, waiting.length);
        waiting = null;
      }
      const out: Uint8Array[] = [];
      let from = 0;
      let end = bytes.length;
      const n = bytes.length;
      let i = 0;
      while (i < n) {
        if (state === START) {
          const quoted = bytes[i] === QUOTE;
          const text = quoted ? i + 1 : i;
          const v = verdict(bytes, text, quoted, kinds[column]);
          if (v === "more") {
            // Undecided at the chunk's end: the cell waits, from its start, for the next chunk.
            waiting = bytes.slice(i);
            end = i;
            break;
          }
          if (v === "prefix") {
            out.push(bytes.subarray(from, text), PREFIX);
            from = text;
          }
          state = quoted ? QUOTED : PLAIN;
          i = text;
          continue;
        }
        const b = bytes[i]!;
        if (state === QUOTED) {
          if (b === QUOTE) state = AFTER_QUOTE;
        } else if (b === QUOTE && state === AFTER_QUOTE) {
          // A doubled quote inside the cell.
          state = QUOTED;
        } else if (b === COMMA) {
          column++;
          state = START;
        } else if (b === LF) {
          column = 0;
          state = START;
        }
        i++;
      }
      if (out.length === 0 && end === n) return n === 0 ? [] : [bytes];
      if (end > from) out.push(bytes.subarray(from, end));
      return out;
    },
    end() {
      const rest = waiting;
      waiting = null;
      return rest && rest.length > 0 ? [rest] : [];
    },
  };
}
