/**
 * String orders without collation data (localeCompare's first use loads the browser's collation
 * tables; see lib/format.ts). A module of their own: a page that sorts names does not load the
 * number formats.
 */

/** Plain code-unit order of ids, dates and other machine strings (no collation data needed). */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Names as people read them: case aside first, then as written (stable for names differing only in case). */
export function compareNames(a: string, b: string): number {
  return compareCodeUnits(a.toLowerCase(), b.toLowerCase()) || compareCodeUnits(a, b);
}
