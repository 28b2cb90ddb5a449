import { z } from "zod";
import { timestampSchema } from "@/lib/contract/time";

/** A datetime-local value ("2025-03-14T09:00", read as UTC) as an RFC 3339 timestamp. */
export function localToRfc3339(value: string): string {
  return value.length === 16 ? `${value}:00Z` : `${value}Z`;
}

/** An RFC 3339 timestamp as a datetime-local value in UTC. */
export function rfc3339ToLocal(value: string | null | undefined): string {
  if (!value) return "";
  const t = Date.parse(value);
  return Number.isNaN(t) ? "" : new Date(t).toISOString().slice(0, 16);
}

const localStamp = z
  .string()
  .min(1, "is required")
  .transform((v, ctx) => {
    const iso = localToRfc3339(v);
    const parsed = timestampSchema.safeParse(iso);
    if (!parsed.success) {
      ctx.addIssue({ code: "custom", message: parsed.error.issues[0]?.message ?? "must be a date and time" });
      return z.NEVER;
    }
    return iso;
  });

/** The custom range form: both ends required, the start before the end. */
export const customRangeSchema = z
  .object({ from: localStamp, to: localStamp })
  .refine((v) => Date.parse(v.from) < Date.parse(v.to), { path: ["to"], message: "must be after the start" });

/** Why a custom range taken from the URL cannot be asked for, or null when it can. */
export function customRangeProblem(start: string | null, end: string | null): string | null {
  if (!start || !end) return "A custom range needs both a start and an end.";
  const s = timestampSchema.safeParse(start);
  if (!s.success) return `start ${s.error.issues[0]?.message ?? "is not a timestamp"}`;
  const e = timestampSchema.safeParse(end);
  if (!e.success) return `end ${e.error.issues[0]?.message ?? "is not a timestamp"}`;
  if (Date.parse(start) >= Date.parse(end)) return "The start of the range must be before its end.";
  return null;
}
