import type { Entity } from "@/lib/contract/organizations";
import type { SettingsFormInput } from "./settings-schema";

export const ADDRESS_FIELDS = [
  { name: "address_line1", label: "Address line 1", autoComplete: "address-line1" },
  { name: "address_line2", label: "Address line 2 (optional)", autoComplete: "address-line2" },
  { name: "city", label: "City", autoComplete: "address-level2" },
  { name: "state_or_region", label: "State or region", autoComplete: "address-level1" },
  { name: "postal_code", label: "Postal code", autoComplete: "postal-code" },
  { name: "country", label: "Country (two-letter code)", autoComplete: "country" },
] as const;

export function addressEntered(address: Record<string, string>): boolean {
  return Object.values(address).some((v) => v.trim() !== "");
}

export function toFormValues(entity: Entity): SettingsFormInput {
  const a = entity.billing_addr;
  return {
    organization_name: entity.name,
    company_name: entity.company_name ?? "",
    tax_id: entity.tax_id ?? "",
    tax_id_type: entity.tax_id_type ?? "",
    billing_addr: {
      address_line1: a?.address_line1 ?? "",
      address_line2: a?.address_line2 ?? "",
      city: a?.city ?? "",
      state_or_region: a?.state_or_region ?? "",
      postal_code: a?.postal_code ?? "",
      country: a?.country ?? "",
    },
  };
}

/** Form fields a gateway 400 can name, as react-hook-form paths. */
export const SETTINGS_FIELDS = new Set<string>([
  "organization_name",
  "company_name",
  "tax_id",
  "tax_id_type",
  ...ADDRESS_FIELDS.map((f) => `billing_addr.${f.name}`),
]);
