/**
 * Money is added in integer cents: floats of dollars never meet in a sum.
 *
 * 1.005 * 100 is 100.49999999999999 in binary: only a product that lands within the float's
 * error of a half cent can round the wrong way, and only those are trimmed to 12 significant
 * digits (rounding them as the decimal they were). Every other amount rounds as it is: the
 * trimming goes through a string, and a month of cost rows is tens of thousands of amounts.
 */
import { formatUsd, formatUsdCompact } from "@/lib/format";
export function toCents(amount: number | undefined): number {
  const x = (amount ?? 0) * 100;
  const rounded = Math.round(x);
  // Within 1e-11 of x (relative) of the half: where 12 significant digits can move x across it.
  if (Math.abs(Math.abs(x - rounded) - 0.5) > Math.abs(x) * 1e-11 + 1e-9) return rounded;
  return Math.round(Number(x.toPrecision(12)));
}


export function formatCents(cents: number): string {
  return formatUsd(cents / 100);
}

export function formatCentsShort(cents: number): string {
  return formatUsdCompact(cents / 100, { maximumFractionDigits: 1 });
}
