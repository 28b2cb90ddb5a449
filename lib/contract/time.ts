import { z } from "zod";

/** The span the store's timestamps take: PostgreSQL has no year 0 and the gateway writes years of four digits. */
export const EARLIEST = Date.parse("0001-01-01T00:00:00Z");
export const LATEST = Date.parse("9999-12-31T23:59:59.999Z");
const inSpan = (v: string) => {
  const t = Date.parse(v);
  return t >= EARLIEST && t <= LATEST;
};

/** A refinement of a value that passed the checks before it: a malformed value is told that, and only that. */
const wellFormed = (message: string) => ({ message, when: (payload: { issues: unknown[] }) => payload.issues.length === 0 });

/** A calendar date, YYYY-MM-DD. */
export const dateSchema = z.iso
  .date({ message: "must be a valid date YYYY-MM-DD" })
  .refine((v) => inSpan(`${v}T00:00:00Z`), wellFormed("must be a date from 0001-01-01 to 9999-12-31"));

/** An RFC 3339 timestamp with Z or a numeric offset. */
export const timestampSchema = z.iso
  .datetime({ offset: true, message: "must be an RFC 3339 timestamp with offset, e.g. 2024-01-31T23:59:59Z" })
  .refine(inSpan, wellFormed("must fall between years 0001 and 9999 in UTC"));

/** An RFC 3339 timestamp later than the moment the request is validated (expiry dates). */
export const futureTimestampSchema = timestampSchema.refine((v) => Date.parse(v) > Date.now(), wellFormed("must be in the future"));

/** A time's fraction digits after its milliseconds (which Date.parse drops), the same in any offset. */
const afterMilliseconds = (value: string): string => /\.\d{3}(\d*)/.exec(value)?.[1] ?? "";

/**
 * Two RFC 3339 timestamps (or dates) in time order, to the last digit of their fractions: negative, zero or
 * positive. A Date keeps milliseconds (Date.parse drops the digits after them); the store keeps microseconds.
 */
export function compareInstants(a: string, b: string): number {
  const ms = Date.parse(a) - Date.parse(b);
  if (ms !== 0) return Math.sign(ms);
  const [x, y] = [afterMilliseconds(a), afterMilliseconds(b)];
  const width = Math.max(x.length, y.length);
  return x.padEnd(width, "0").localeCompare(y.padEnd(width, "0"));
}

/**
 * An RFC 3339 time as the store reads one: UTC, to the microsecond. The store's own reading refuses what RFC 3339
 * allows (an offset past ±15:59, a fraction past its buffer); the digits past the microsecond round toward the
 * window's inside (a start up, an end down), so the window holds what the bound as sent holds.
 */
export function storeInstant(value: string, bound: "start" | "end"): string {
  const beyond = afterMilliseconds(value);
  const rest = beyond.slice(3);
  // In BigInt: microseconds since 1970 pass 2^53 after the year 2255, where a double's last digits are no longer exact.
  const exact = BigInt(Date.parse(value)) * 1000n + BigInt(beyond.slice(0, 3).padEnd(3, "0")) + (bound === "start" && /[1-9]/.test(rest) ? 1n : 0n);
  // A start rounded up past the store's last microsecond (9999-12-31T23:59:59.999999) stays there: it cannot write a
  // five-digit year, and no row lies beyond.
  const micros = exact > LATEST_MICROS ? LATEST_MICROS : exact;
  const ms = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  return `${new Date(Number(ms)).toISOString().slice(0, -1)}${String(micros - ms * 1000n).padStart(3, "0")}Z`;
}

const LATEST_MICROS = BigInt(LATEST) * 1000n + 999n;

/**
 * Refuses a range whose start lies after its end, naming the start field.
 * Dates and timestamps alike: both compare correctly once parsed.
 */
export function orderedRange<T extends Record<string, unknown>>(startKey: keyof T & string, endKey: keyof T & string) {
  return (value: T, ctx: z.RefinementCtx) => {
    const start = value[startKey];
    const end = value[endKey];
    if (typeof start !== "string" || typeof end !== "string") return;
    // A bound already refused is not compared too: 2026-02-30 parses (leniently, as March 2), and a
    // second message on the field, about its order, would mislead.
    if (ctx.issues.some((issue) => issue.path?.[0] === startKey || issue.path?.[0] === endKey)) return;
    if (compareInstants(start, end) > 0) {
      ctx.addIssue({ code: "custom", path: [startKey], message: `must not be after ${endKey}` });
    }
  };
}
