/**
 * Why a custom range taken from the URL cannot be asked for, or null when it may be: both ends
 * present, readable and in order. The exact timestamp rules are the contract's, applied by the
 * gateway, whose 400 the page shows in the same place.
 */
export function customRangeProblem(start: string | null, end: string | null): string | null {
  if (!start || !end) return "A custom range needs both a start and an end.";
  const s = Date.parse(start);
  const e = Date.parse(end);
  if (Number.isNaN(s)) return "start is not a timestamp";
  if (Number.isNaN(e)) return "end is not a timestamp";
  if (s >= e) return "The start of the range must be before its end.";
  return null;
}
