import publicDomains from "email-providers/all.json";

const PUBLIC = new Set<string>(publicDomains);

/**
 * A domain of a public e-mail service (gmail.com, outlook.com, …: email-providers' list of about 8,800),
 * where anyone may hold an address: no organization's SSO provider may serve one, or it would sign in,
 * as themselves, people who never joined that organization, and keep the domain from every other.
 */
export function isPublicEmailDomain(domain: string): boolean {
  return PUBLIC.has(domain.toLowerCase());
}
