/** Money is added in integer cents: floats of dollars never meet in a sum. */
export function toCents(amount: number | undefined): number {
  // 1.005 * 100 is 100.49999999999999 in binary: trimming to 12 significant digits first rounds it as the decimal it was.
  return Math.round(Number(((amount ?? 0) * 100).toPrecision(12)));
}

const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });
const usdShort = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", notation: "compact", maximumFractionDigits: 1 });

export function formatCents(cents: number): string {
  return usd.format(cents / 100);
}

export function formatCentsShort(cents: number): string {
  return usdShort.format(cents / 100);
}
