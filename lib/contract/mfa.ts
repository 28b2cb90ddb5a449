import { z } from "zod";
import { bodyArray } from "./common";
import { MFA_METHODS } from "./constants";
import { organizationMfaSchema } from "./organizations";

export { MFA_METHODS, type MfaMethod } from "./constants";

export const mfaPathSchema = z.object({ organization_id: z.string() });

/** How many of the organization's active people have enrolled each method: what requiring one would ask of them. */
export const mfaEnrollmentSchema = z
  .object({ people: z.number().int(), totp: z.number().int(), webauthn: z.number().int(), any: z.number().int() })
  .meta({ id: "OrgMFAEnrollment" });

export const MFA_GRACE_MAX_DAYS = 90;

export const getOrgMfaResponseSchema = z
  .object({
    mfa_methods: z.array(organizationMfaSchema),
    /** Days, from when MFA was first required, that a person without a required method may still sign in and enrol later. */
    enrollment_grace_days: z.number().int(),
    enrollment: mfaEnrollmentSchema,
  })
  .meta({ id: "GetOrgMFAResponse" });

/**
 * The methods the organization requires from now on; repeats collapse, an empty list requires none. Named as the spec's
 * MFA table names the PATCH body (schema names are the names of request body types).
 */
export const editOrgMfaRequestSchema = z
  .object({
    // Absent is the empty list too: the upstream's Go client omits an empty list (`omitempty`), so `{}` is how it
    // requires no method, as the upstream's own server reads it.
    intended_methods: bodyArray(
      z
        .array(z.enum(MFA_METHODS, { message: `must be one of ${MFA_METHODS.join(", ")}` }), { message: "must be an array of MFA methods" })
        .max(10, "must hold at most 10 methods"),
      { absent: true },
    ),
    enrollment_grace_days: z
      .number({ message: "must be a whole number of days" })
      .int("must be a whole number of days")
      .min(0, "must be 0 or more")
      .max(MFA_GRACE_MAX_DAYS, `must be at most ${MFA_GRACE_MAX_DAYS}`)
      .optional(),
  })
  .meta({ id: "OrganizationsMFAServiceUpdateOrganizationMFABody" });

export type EditOrgMfaRequest = z.infer<typeof editOrgMfaRequestSchema>;
