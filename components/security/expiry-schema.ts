import { z } from "zod";
import { dateSchema } from "@/lib/contract/time";
import { endOfDayUtc } from "./expiry-field";

// Apart from the field (expiry-field.tsx): forms load these rules when first validated (lazyZodResolver).

/** An expiry date chosen in a form: a real date whose end (UTC) is still ahead. */
export const expiryDateSchema = dateSchema.refine((d) => Date.parse(endOfDayUtc(d)) > Date.now(), "must be today or later");

/** The same, but empty means "never expires". */
export const optionalExpiryDateSchema = z.union([z.literal(""), expiryDateSchema]);
