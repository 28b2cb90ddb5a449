import { z } from "zod";
import { createScimTokenRequestSchema } from "@/lib/contract/scim";
import { expiryDateSchema } from "@/components/common/expiry-schema";

/** A token as the forms ask for it: an alias and the day it expires. */
export const scimTokenFormSchema = z.object({
  alias: createScimTokenRequestSchema.shape.alias,
  expires_on: expiryDateSchema,
});
