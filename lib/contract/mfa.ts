import { z } from "zod";
import { bodyArray } from "./common";
import { MFA_METHODS } from "./constants";
import { organizationMfaSchema } from "./organizations";

export { MFA_METHODS, type MfaMethod } from "./constants";

export const mfaPathSchema = z.object({ organization_id: z.string() });

export const getOrgMfaResponseSchema = z.object({ mfa_methods: z.array(organizationMfaSchema) }).meta({ id: "GetOrgMFAResponse" });

/** The methods the organization requires from now on; repeats collapse, an empty list requires none. */
export const editOrgMfaRequestSchema = z
  .object({
    intended_methods: bodyArray(
      z
        .array(z.enum(MFA_METHODS, { message: `must be one of ${MFA_METHODS.join(", ")}` }), { message: "must be an array of MFA methods" })
        .max(10, "must hold at most 10 methods"),
    ),
  })
  .meta({ id: "EditOrgMFARequest" });

export type EditOrgMfaRequest = z.infer<typeof editOrgMfaRequestSchema>;
