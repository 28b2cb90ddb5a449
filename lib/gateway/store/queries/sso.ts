import { and, asc, eq } from "drizzle-orm";
import type { SsoProvider } from "@/lib/contract/sso";
import type { Database } from "../client";
import { ssoProviders } from "../schema";

export type SsoProviderRow = typeof ssoProviders.$inferSelect;

export const PROVIDER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function toSsoProvider(row: SsoProviderRow): SsoProvider {
  return {
    id: row.id,
    org_id: row.organizationId,
    client_id: row.clientId,
    issuer_uri: row.issuerUri,
    created_at: row.createdAt.toISOString(),
    email_domains: row.emailDomains,
  };
}

export async function listSsoProviders(db: Database, organizationId: string): Promise<SsoProviderRow[]> {
  return db
    .select()
    .from(ssoProviders)
    .where(eq(ssoProviders.organizationId, organizationId))
    .orderBy(asc(ssoProviders.createdAt), asc(ssoProviders.id));
}

export async function findSsoProvider(db: Database, organizationId: string, providerId: string): Promise<SsoProviderRow | undefined> {
  if (!PROVIDER_ID.test(providerId)) return undefined;
  const [row] = await db
    .select()
    .from(ssoProviders)
    .where(and(eq(ssoProviders.organizationId, organizationId), eq(ssoProviders.id, providerId)));
  return row;
}
