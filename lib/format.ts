/**
 * Numbers and money as the console shows them (en-US), written out
 * instead of asked of Intl. Two reasons:
 *
 * - The first Intl formatter (and the first localeCompare) a page makes loads the
 *   browser's locale data: 40–110 ms of main thread on a mid-range phone, inside the
 *   page's hydration, once per Intl service (numbers, collation, relative times).
 * - The server's Node and the user's browser carry different ICU versions, whose output
 *   can differ (spaces, compact forms); text rendered on both sides must be identical.
 *
 * Each function returns what `Intl.NumberFormat("en-US", …)` returns for the same options
 * (format.test.ts holds them to it): like Intl, they round the shortest decimal that reads back
 * as the number (0.285 is 0.285, not 0.28499999…), half away from zero. Dates (lib/utc-date.ts,
 * lib/dates.ts), relative times (lib/relative-time.ts) and name order (lib/compare.ts) live in
 * modules of their own, so a page that shows only those does not load these number formats.
 */

export interface FractionDigits {
  minimumFractionDigits?: number;
  maximumFractionDigits?: number;
}

const groupThousands = (digits: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** |value| as plain decimal digits, the shortest that read back as the same number (as Intl starts from). */
function plainDigits(value: number): { whole: string; fraction: string } {
  const [mantissa = "0", exponent] = String(Math.abs(value)).split("e");
  const [head = "0", tail = ""] = mantissa.split(".");
  if (!exponent) return { whole: head, fraction: tail };
  const shift = Number(exponent);
  const digits = head + tail;
  const point = head.length + shift;
  if (point <= 0) return { whole: "0", fraction: "0".repeat(-point) + digits };
  if (point >= digits.length) return { whole: digits + "0".repeat(point - digits.length), fraction: "" };
  return { whole: digits.slice(0, point), fraction: digits.slice(point) };
}

/** Adds one to a string of decimal digits ("199" → "200", "99" → "100"). */
function increment(digits: string): string {
  const out = digits.split("");
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] !== "9") {
      out[i] = String(Number(out[i]) + 1);
      return out.join("");
    }
    out[i] = "0";
  }
  return `1${out.join("")}`;
}

/** Rounds decimal digits to `max` fraction digits, half away from zero (on the decimal, not the binary value). */
function roundDigits({ whole, fraction }: { whole: string; fraction: string }, max: number): { whole: string; fraction: string } {
  if (fraction.length <= max) return { whole, fraction };
  let kept = whole + fraction.slice(0, max);
  if (fraction.charCodeAt(max) >= 53 /* "5" */) kept = increment(kept);
  const wholeLength = kept.length - max;
  return { whole: kept.slice(0, wholeLength).replace(/^0+(?=\d)/, "") || "0", fraction: kept.slice(wholeLength) };
}

/** The unsigned digits of rounded decimals with at least `min` fraction digits, grouped: "1,234.5". */
function showDigits({ whole, fraction }: { whole: string; fraction: string }, min: number, grouping: "always" | "min2" = "always"): string {
  let kept = fraction.padEnd(min, "0");
  while (kept.length > min && kept.endsWith("0")) kept = kept.slice(0, -1);
  const grouped = grouping === "min2" && whole.length < 5 ? whole : groupThousands(whole);
  return kept ? `${grouped}.${kept}` : grouped;
}

/** The unsigned digits of |value| with the fraction digits asked, grouped: "1,234.5". */
function unsignedDigits(value: number, min: number, max: number): string {
  return showDigits(roundDigits(plainDigits(value), max), min);
}

/** "-" when Intl would show a minus: below zero, or negative zero, or rounded to it from below. */
const minus = (value: number) => (value < 0 || Object.is(value, -0) ? "-" : "");

function nonFinite(value: number): string | null {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "-∞";
  return null;
}

function digitBounds(options: FractionDigits, defaultMin: number, defaultMax: number): [number, number] {
  const max = options.maximumFractionDigits ?? Math.max(defaultMax, options.minimumFractionDigits ?? 0);
  const min = options.minimumFractionDigits ?? Math.min(defaultMin, max);
  return [min, max];
}

/** "1,234.57" — Intl.NumberFormat("en-US", options) (0 to 3 fraction digits by default). */
export function formatNumber(value: number, options: FractionDigits = {}): string {
  const [min, max] = digitBounds(options, 0, 3);
  return nonFinite(value) ?? `${minus(value)}${unsignedDigits(value, min, max)}`;
}

/** "$1,234.57", "-$3.00" — Intl.NumberFormat("en-US", { style: "currency", currency: "USD", ...options }). */
export function formatUsd(value: number, options: FractionDigits = {}): string {
  const [min, max] = digitBounds(options, 2, 2);
  const special = nonFinite(value);
  return special ? special.replace(/^(-?)/, "$1$") : `${minus(value)}$${unsignedDigits(value, min, max)}`;
}

const COMPACT_SUFFIXES = ["", "K", "M", "B", "T"] as const;

/** |value| in its compact unit (thousands, millions…) with `min`..`max` fraction digits, and the unit's suffix. */
function compactParts(value: number, min: number, max: number): string {
  const exact = plainDigits(value);
  const wholeDigits = exact.whole.replace(/^0+/, "").length;
  let unit = Math.min(Math.max(0, Math.floor((wholeDigits - 1) / 3)), COMPACT_SUFFIXES.length - 1);
  for (;;) {
    // Moving the decimal point is exact on the digits: no division of binary numbers.
    const point = exact.whole.length - 3 * unit;
    const scaled = roundDigits({ whole: exact.whole.slice(0, point) || "0", fraction: exact.whole.slice(point) + exact.fraction }, max);
    // 999,960 rounds to 1,000K: Intl moves such a number to the next unit ("1M").
    if (scaled.whole.length > 3 && unit < COMPACT_SUFFIXES.length - 1) {
      unit += 1;
      continue;
    }
    // Compact numbers group thousands only from five digits on ("1000T", "10,000T"), as Intl does.
    return `${showDigits(scaled, min, "min2")}${COMPACT_SUFFIXES[unit]}`;
  }
}

/** "1.2K", "12.3M", "999" — Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits }). */
export function formatCompact(value: number, { maximumFractionDigits }: { maximumFractionDigits: number }): string {
  return nonFinite(value) ?? `${minus(value)}${compactParts(value, 0, maximumFractionDigits)}`;
}

/** "$1.2K", "$12.0K" — the same in US dollars (currency keeps up to 2 fraction digits even when compact). */
export function formatUsdCompact(value: number, { maximumFractionDigits }: { maximumFractionDigits: number }): string {
  const special = nonFinite(value);
  if (special) return special.replace(/^(-?)/, "$1$");
  return `${minus(value)}$${compactParts(value, Math.min(2, maximumFractionDigits), maximumFractionDigits)}`;
}
