import { z } from "zod";
import { MFA_METHODS } from "./constants";
import { nameSchema, plainText, requiredString } from "./common";

export const mfaMethodSchema = z.enum(MFA_METHODS);

export const organizationMfaSchema = z
  .object({ method: mfaMethodSchema, created_at: z.string() })
  .meta({ id: "OrganizationMFA" });

export const billingSchema = z
  .object({
    balance: z.string().meta({ example: "$1000.00" }),
    billing_method: z.enum(["stripe", "manual"]).optional(),
    delinquent: z.boolean(),
    has_valid_payment_method: z.boolean(),
  })
  .meta({ id: "Billing" });

/** A free-text line of an organization's details: no control or invisible formatting characters, as in names. */
const line = (max: number) => plainText(z.string({ message: "must be a string" }).trim().max(max, `must be at most ${max} characters`));
const requiredLine = (max: number) => line(max).min(1, "must not be empty");

export const billingAddressSchema = z
  .object({
    address_line1: requiredLine(200),
    address_line2: line(200).optional(),
    city: requiredLine(100),
    state_or_region: requiredLine(100),
    postal_code: requiredLine(20).regex(/^[A-Za-z0-9 -]+$/, "must hold only letters, digits, spaces and dashes"),
    country: z
      .string({ message: "must be a string" })
      .trim()
      .regex(/^[A-Za-z]{2}$/, "must be a two-letter country code")
      .transform((c) => c.toUpperCase()),
  })
  .meta({ id: "BillingAddress" });

export const taxIdTypeSchema = z.enum(["EIN", "VAT"]);

export const entitySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    relation: z.string(),
    billing: billingSchema,
    billing_addr: billingAddressSchema.optional(),
    company_name: z.string().optional(),
    features: z.record(z.string(), z.unknown()),
    mfa_methods: z.array(organizationMfaSchema).optional(),
    organization_type: z.enum(["standard", "enterprise", "limited"]).optional(),
    registration_type: z.string().optional(),
    state: z.string(),
    state_reason: z.string(),
    tax_id: z.string().optional(),
    tax_id_type: taxIdTypeSchema.optional(),
    permissions: z
      .array(z.string())
      .optional()
      .meta({ description: "Stratus extension: the caller's organization-wide permissions, so clients can offer only what will succeed." }),
  })
  .meta({ id: "Entity" });

export const listEntitiesResponseSchema = z.object({ items: z.array(entitySchema) }).meta({ id: "ListEntitiesResponseV1" });

export const entitiesPutPostRequestSchema = z
  .object({
    organization_name: nameSchema.optional(),
    company_name: line(255).optional(),
    billing_addr: billingAddressSchema.optional(),
    tax_id: line(64).regex(/^[A-Za-z0-9 .\-/]*$/, "must hold only letters, digits, spaces, dots, dashes and slashes").optional(),
    tax_id_type: taxIdTypeSchema.optional(),
  })
  .strict()
  .meta({ id: "EntitiesPutPostRequest" });

export const entitiesPutPostResponseSchema = z.object({ entity: entitySchema }).meta({ id: "EntitiesPutPostResponse" });

export const updateOrganizationQuerySchema = z.object({
  org_id: requiredString().trim().min(1, "is required"),
});

export type Entity = z.infer<typeof entitySchema>;
export type EntitiesPutPostRequest = z.infer<typeof entitiesPutPostRequestSchema>;
