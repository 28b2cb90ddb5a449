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

/**
 * Code point order: as PostgreSQL's "C" collation orders UTF-8 text, so a list sorted here and one
 * sorted by the store agree. Code-unit order differs from it only where a character above U+FFFF
 * (two UTF-16 units, the first from U+D800) meets one from U+E000 to U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}
