/** Small statistics helpers for the benchmarks. */

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank: the smallest value with at least p% of the values at or below it.
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}

export const median = (values: readonly number[]): number => percentile(values, 50);

/** Milliseconds since an arbitrary origin, with sub-microsecond resolution. */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Times `fn` once, in milliseconds. */
export async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const start = nowMs();
  await fn();
  return nowMs() - start;
}

export function formatMs(ms: number): string {
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  return `${ms.toFixed(1)} ms`;
}

export function formatInt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}
