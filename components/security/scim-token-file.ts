import type { OneTimeSecret } from "@/components/common/create-dialog";

export const SCIM_TOKEN_ENV = { token: "SCIM_BEARER_TOKEN", id: "SCIM_TOKEN_ID" } as const;

/** "scim-token-okta-2025" from an alias, safe as a file name. */
export function tokenFileBase(alias: string): string {
  const slug = alias
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  return `scim-token-${slug || "new"}`;
}

/** A new SCIM token as shown once: its id and its bearer token, downloadable under SCIM_TOKEN_ENV's names. */
export function scimTokenSecret(title: string, token: { alias: string; key_id: string; api_key: string }): OneTimeSecret {
  return {
    title,
    fileBase: tokenFileBase(token.alias),
    fields: [
      { label: "Token ID", envName: SCIM_TOKEN_ENV.id, value: token.key_id },
      { label: "Bearer token", envName: SCIM_TOKEN_ENV.token, value: token.api_key, secret: true },
    ],
  };
}
