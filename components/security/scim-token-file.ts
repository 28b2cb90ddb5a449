import type { OneTimeSecret } from "@/components/common/create-dialog";
import { SCIM_BASE_PATH } from "@/lib/contract/constants";

export const SCIM_TOKEN_ENV = { token: "SCIM_BEARER_TOKEN", id: "SCIM_TOKEN_ID", baseUrl: "SCIM_BASE_URL" } as const;

/** The SCIM 2.0 base URL identity providers call: this server's /scim/v2 (the path alone on the server). */
export function scimBaseUrl(): string {
  return typeof window === "undefined" ? SCIM_BASE_PATH : `${window.location.origin}${SCIM_BASE_PATH}`;
}

/** "scim-token-okta-2025" from an alias, safe as a file name. */
export function tokenFileBase(alias: string): string {
  const slug = alias
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  return `scim-token-${slug || "new"}`;
}

/** A new SCIM token as shown once, beside the SCIM base URL: both copyable, downloadable under SCIM_TOKEN_ENV's names. */
export function scimTokenSecret(title: string, token: { alias: string; key_id: string; api_key: string }): OneTimeSecret {
  return {
    title,
    fileBase: tokenFileBase(token.alias),
    fields: [
      { label: "SCIM base URL", envName: SCIM_TOKEN_ENV.baseUrl, value: scimBaseUrl() },
      { label: "Token ID", envName: SCIM_TOKEN_ENV.id, value: token.key_id },
      { label: "Bearer token", envName: SCIM_TOKEN_ENV.token, value: token.api_key, secret: true },
    ],
  };
}
