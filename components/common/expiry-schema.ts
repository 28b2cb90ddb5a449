import { z } from "zod";
import { dateSchema } from "@/lib/contract/time";
import { endOfDayUtc } from "@/components/common/expiry-field";

// Apart from the field (expiry-field.tsx): the forms that use these rules are themselves loaded on first use.

/** An expiry date chosen in a form: a real date whose end (UTC) is still ahead. */
export const expiryDateSchema = dateSchema.refine((d) => Date.parse(endOfDayUtc(d)) > Date.now(), "must be today or later");

/** The same, but empty means "never expires". */
export const optionalExpiryDateSchema = z.union([z.literal(""), expiryDateSchema]);
