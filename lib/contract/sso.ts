import { z } from "zod";
import { bodyArray } from "./common";

export const ssoOrgPathSchema = z.object({ organization_id: z.string() });
export const ssoProviderPathSchema = z.object({ organization_id: z.string(), provider_id: z.string() });

/** LDH labels of 1 to 63 characters, at least two, an alphabetic (or IDN) top-level label. */
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * An http(s) URL on this machine's loopback: accepted by the schema, but the gateway refuses it as an
 * issuer unless told to allow it (STRATUS_SSO_LOOPBACK_ISSUERS, for development and tests).
 */
export function isLoopbackUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_HOSTS.has(url.hostname);
}

export const emailDomainSchema = z
  .string({ message: "must be a string" })
  .trim()
  .toLowerCase()
  .regex(DOMAIN, "must be a domain name such as example.com");

const clientIdSchema = z
  .string({ message: "must be a string" })
  .trim()
  .min(1, "must not be empty")
  .max(255, "must be at most 255 characters")
  .regex(/^[^\p{Cc}\p{Cf}\s]+$/u, "must not contain spaces, control or format characters");

/** Write-only: stored encrypted, never answered (`has_client_secret` says whether one is set). */
const clientSecretSchema = z
  .string({ message: "must be a string" })
  .trim()
  .min(1, "must not be empty")
  .max(1024, "must be at most 1024 characters")
  .regex(/^[^\p{Cc}\p{Cf}\s]+$/u, "must not contain spaces, control or format characters")
  .meta({ writeOnly: true, description: "The client secret the provider issued to this console; never returned." });

export const createSsoProviderRequestSchema = z
  .object({
    client_id: clientIdSchema,
    client_secret: clientSecretSchema.optional(),
    issuer_uri: z
      .string({ message: "must be a string" })
      .trim()
      .min(1, "must not be empty")
      .max(2048, "must be at most 2048 characters")
      // The URL parser drops a tab or soft hyphen unseen: the issuer is kept as sent, shown, and compared with the ID token's.
      .regex(/^[^\p{Cc}\p{Cf}\s]+$/u, "must not contain spaces, control or format characters")
      .refine(
        (v) => isLoopbackUrl(v) || z.url({ protocol: /^https$/, hostname: z.regexes.domain }).safeParse(v).success,
        "must be an https URL with a host name",
      )
      // An OpenID issuer identifier has no credentials, query or fragment (OpenID Connect Discovery 1.0, section 3).
      .refine((v) => {
        if (!URL.canParse(v)) return true; // already reported as not a URL
        const url = new URL(v);
        return !url.username && !url.password && !url.search && !url.hash;
      }, "must not hold credentials, a query or a fragment")
      .meta({ example: "https://login.example.com/oauth2/default" }),
    email_domains: bodyArray(
      z
        .array(emailDomainSchema, { message: "must be an array of domain names" })
        .min(1, "must hold at least one domain")
        .max(50, "must hold at most 50 domains"),
    ),
  })
  .meta({ id: "CreateSSOProviderRequest" });

/** The console's "replace client secret" form: updateSSOProvider with the secret alone. */
export const replaceSsoClientSecretSchema = z.object({ client_secret: clientSecretSchema });

/** Replaces the client id and/or the client secret; the issuer and domains stay (delete and add a provider to change them). */
export const updateSsoProviderRequestSchema = z
  .object({ client_id: clientIdSchema.optional(), client_secret: clientSecretSchema.optional() })
  .refine((body) => body.client_id !== undefined || body.client_secret !== undefined, "must hold client_id or client_secret")
  .meta({ id: "UpdateSSOProviderRequest" });

export const ssoProviderSchema = z
  .object({
    id: z.string(),
    org_id: z.string(),
    client_id: z.string(),
    issuer_uri: z.string(),
    created_at: z.string(),
    email_domains: z.array(z.string()),
    /** Whether a client secret is stored; the secret itself is never returned. */
    has_client_secret: z.boolean(),
  })
  .meta({ id: "SSOProvider" });

export const listSsoProvidersResponseSchema = z
  .object({ sso_providers: z.array(ssoProviderSchema) })
  .meta({ id: "ListSSOProvidersResponse" });

export type SsoProvider = z.infer<typeof ssoProviderSchema>;
export type CreateSsoProviderRequest = z.infer<typeof createSsoProviderRequestSchema>;
export type UpdateSsoProviderRequest = z.infer<typeof updateSsoProviderRequestSchema>;

export { ssoRedirectUri } from "./constants";
