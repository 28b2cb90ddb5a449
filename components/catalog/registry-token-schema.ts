import { z } from "zod";
import { localToRfc3339 } from "@/lib/dates";
import { aliasSchema } from "@/lib/contract/common";
import { ccrTokenRequestSchema, type CcrTokenRequest } from "@/lib/contract/registry";
import { futureTimestampSchema } from "@/lib/contract/time";
import { DAYS, EXPIRY, type Expiry } from "./registry-token-expiry";

// The registry token form's rules and request, loaded when the form is first focused or sent.

export const registryTokenFormSchema = z
  .object({
    alias: aliasSchema,
    expiry: z.enum(Object.keys(EXPIRY) as [Expiry, ...Expiry[]]),
    expires_at: z.string(),
  })
  .superRefine((v, ctx) => {
    if (v.expiry !== "custom") return;
    if (!v.expires_at) {
      ctx.addIssue({ code: "custom", path: ["expires_at"], message: "is required for an expiry on a date" });
      return;
    }
    const parsed = futureTimestampSchema.safeParse(localToRfc3339(v.expires_at));
    if (!parsed.success) ctx.addIssue({ code: "custom", path: ["expires_at"], message: parsed.error.issues[0]?.message ?? "must be a date and time" });
  });

type FormValues = z.input<typeof registryTokenFormSchema>;

/** The request body the form stands for, checked against the contract's schema. */
export function toRequest(v: FormValues, now = Date.now()): CcrTokenRequest {
  const days = DAYS[v.expiry];
  const expires_at =
    v.expiry === "custom" ? localToRfc3339(v.expires_at) : days ? new Date(now + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z") : undefined;
  return ccrTokenRequestSchema.parse({ alias: v.alias.trim() || undefined, expires_at });
}
