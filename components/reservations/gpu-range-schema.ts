import { z } from "zod";
import { timestampSchema } from "@/lib/contract/time";
import { localToRfc3339 } from "@/lib/dates";

// The custom range form's rules (the form itself is loaded when first shown: gpu-tracking.tsx).

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
