import { z } from "zod";
import { bodyArray } from "./common";

export const ssoOrgPathSchema = z.object({ organization_id: z.string() });
export const ssoProviderPathSchema = z.object({ organization_id: z.string(), provider_id: z.string() });

/** LDH labels of 1 to 63 characters, at least two, an alphabetic (or IDN) top-level label. */
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

export const emailDomainSchema = z
  .string({ message: "must be a string" })
  .trim()
  .toLowerCase()
  .regex(DOMAIN, "must be a domain name such as example.com");

export const createSsoProviderRequestSchema = z
  .object({
    client_id: z
      .string({ message: "must be a string" })
      .trim()
      .min(1, "must not be empty")
      .max(255, "must be at most 255 characters")
      .regex(/^[^\p{Cc}\p{Cf}\s]+$/u, "must not contain spaces, control or format characters"),
    issuer_uri: z
      .string({ message: "must be a string" })
      .trim()
      .min(1, "must not be empty")
      .max(2048, "must be at most 2048 characters")
      .pipe(z.url({ protocol: /^https$/, hostname: z.regexes.domain, error: "must be an https URL with a host name" }))
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

export const ssoProviderSchema = z
  .object({
    id: z.string(),
    org_id: z.string(),
    client_id: z.string(),
    issuer_uri: z.string(),
    created_at: z.string(),
    email_domains: z.array(z.string()),
  })
  .meta({ id: "SSOProvider" });

export const listSsoProvidersResponseSchema = z
  .object({ sso_providers: z.array(ssoProviderSchema) })
  .meta({ id: "ListSSOProvidersResponse" });

export type SsoProvider = z.infer<typeof ssoProviderSchema>;
export type CreateSsoProviderRequest = z.infer<typeof createSsoProviderRequestSchema>;
