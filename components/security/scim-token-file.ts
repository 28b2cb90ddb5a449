export const SCIM_TOKEN_ENV = { token: "SCIM_BEARER_TOKEN", id: "SCIM_TOKEN_ID" } as const;

/** "scim-token-okta-2025" from an alias, safe as a file name. */
export function tokenFileBase(alias: string): string {
  const slug = alias
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  return `scim-token-${slug || "new"}`;
}
