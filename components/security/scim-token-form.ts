import { z } from "zod";
import { createScimTokenRequestSchema } from "@/lib/contract/scim";
import { expiryDateSchema } from "./expiry-field";

/** A token as the forms ask for it: an alias and the day it expires. */
export const scimTokenFormSchema = z.object({
  alias: createScimTokenRequestSchema.shape.alias,
  expires_on: expiryDateSchema,
});

export const SCIM_TOKEN_ENV = { token: "SCIM_BEARER_TOKEN", id: "SCIM_TOKEN_ID" } as const;

/** "scim-token-okta-2025" from an alias, safe as a file name. */
export function tokenFileBase(alias: string): string {
  const slug = alias
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  return `scim-token-${slug || "new"}`;
}
