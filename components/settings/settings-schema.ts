import { z } from "zod";
import { nameSchema } from "@/lib/contract/common";
import { billingAddressSchema, entitiesPutPostRequestSchema, type EntitiesPutPostRequest } from "@/lib/contract/organizations";
import { ADDRESS_FIELDS, addressEntered } from "./settings-form";

type AddressField = (typeof ADDRESS_FIELDS)[number]["name"];

const request = entitiesPutPostRequestSchema.shape;

/**
 * The form holds every value as a string (empty = not set); the rules are the
 * contract's, so the browser says what the gateway would. The billing address is
 * all or nothing: once any part is typed, all of it must be valid.
 */
export function settingsFormSchema(hasAddress: boolean) {
  return z
    .object({
      organization_name: nameSchema,
      company_name: request.company_name.unwrap(),
      tax_id: request.tax_id.unwrap(),
      tax_id_type: z.enum(["", "EIN", "VAT"]),
      billing_addr: z.object(Object.fromEntries(ADDRESS_FIELDS.map((f) => [f.name, z.string()])) as Record<AddressField, z.ZodString>),
    })
    .superRefine((value, ctx) => {
      if (!addressEntered(value.billing_addr)) {
        // The gateway replaces an address but has no way to remove one.
        if (hasAddress) ctx.addIssue({ code: "custom", path: ["billing_addr", "address_line1"], message: "a billing address can be changed but not removed" });
        return;
      }
      const parsed = billingAddressSchema.safeParse(value.billing_addr);
      if (parsed.success) return;
      for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", path: ["billing_addr", ...issue.path.map(String)], message: issue.message });
    });
}

export type SettingsFormInput = z.input<ReturnType<typeof settingsFormSchema>>;
export type SettingsFormOutput = z.output<ReturnType<typeof settingsFormSchema>>;

/** The PUT body for valid form values. */
export function toRequest(values: SettingsFormOutput): EntitiesPutPostRequest {
  const { address_line2, ...address } = values.billing_addr;
  return {
    organization_name: values.organization_name,
    company_name: values.company_name,
    tax_id: values.tax_id,
    ...(values.tax_id_type ? { tax_id_type: values.tax_id_type } : {}),
    ...(addressEntered(values.billing_addr)
      ? { billing_addr: billingAddressSchema.parse({ ...address, ...(address_line2.trim() ? { address_line2 } : {}) }) }
      : {}),
  };
}
