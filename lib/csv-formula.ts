/**
 * The one rule for CSV formula injection, shared by every CSV the project writes:
 * the browser-built exports (components/common/download.ts) and the gateway's
 * server-side exports (lib/gateway/csv.ts, which writes the same rule into SQL).
 * No dependencies, so browser and server code may both import it.
 *
 * A spreadsheet opening a CSV reads a cell starting with `=`, `+`, `-`, `@`, a tab
 * or a carriage return as a formula (OWASP, "CSV Injection"). Such a cell is
 * written with a single quote in front: the spreadsheet shows it as text. Apple
 * Numbers also reads the full-width forms of the four signs as formulas, so they
 * count too.
 *
 * The one exception is a number the writer itself produced from a numeric column
 * (a credit of -12.50): it is written as it is, so the column stays numbers. A cell
 * is only treated as such a number if its text is a plain decimal (PLAIN_NUMBER),
 * which no spreadsheet runs as anything but that number.
 */

/** The characters a formula may start with. */
export const FORMULA_TRIGGERS: readonly string[] = ["=", "+", "-", "@", "\t", "\r", "\uFF1D", "\uFF0B", "\uFF0D", "\uFF20"];

const escapeClass = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** Matches a cell that starts like a formula (not global: safe to reuse). */
export const FORMULA_START = new RegExp(`^[${FORMULA_TRIGGERS.map(escapeClass).join("")}]`);

/** A plain decimal number: optional minus, digits, optional fraction. */
export const PLAIN_NUMBER = /^-?[0-9]+(?:\.[0-9]+)?$/;

/** The cell as it is written to a CSV file: prefixed with `'` when it starts like a formula. */
export function neutraliseFormula(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

/** The same for a cell of a numeric column: a plain decimal number is written as it is. */
export function neutraliseNumber(cell: string): string {
  return PLAIN_NUMBER.test(cell) ? cell : neutraliseFormula(cell);
}
