import { and, eq } from "drizzle-orm";
import type { EntitiesPutPostRequest, Entity } from "@/lib/contract/organizations";
import type { Database } from "../client";
import { memberships, organizations } from "../schema";

export type OrganizationRow = typeof organizations.$inferSelect;

/**
 * Integer cents as the upstream writes a balance, "$1000.00" (its one example): no grouping, so a
 * client that drops the "$" and parses the number reads it at any size. No floats.
 */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(Math.trunc(cents));
  const dollars = String(Math.floor(abs / 100));
  return `${sign}$${dollars}.${String(abs % 100).padStart(2, "0")}`;
}

export function toEntity(
  org: OrganizationRow,
  relation: string,
  features: Record<string, unknown>,
  mfaMethods: Entity["mfa_methods"] = [],
  permissions: string[] = [],
): Entity {
  return {
    id: org.id,
    name: org.name,
    relation,
    billing: {
      balance: formatCents(org.balanceCents),
      billing_method: org.billingMethod as "stripe" | "manual",
      delinquent: org.delinquent,
      has_valid_payment_method: org.hasValidPaymentMethod,
    },
    ...(org.billingAddress ? { billing_addr: org.billingAddress } : {}),
    company_name: org.companyName,
    features,
    mfa_methods: mfaMethods,
    permissions,
    organization_type: org.organizationType as Entity["organization_type"],
    registration_type: org.registrationType,
    state: org.state,
    state_reason: org.stateReason,
    ...(org.taxId ? { tax_id: org.taxId } : {}),
    ...(org.taxIdType ? { tax_id_type: org.taxIdType as "EIN" | "VAT" } : {}),
  };
}

/** The caller's active organizations; only the key's own for a key that acts in one. */
export async function listActiveOrganizations(db: Database, caller: { userId: string; organizationId?: string }) {
  const only = caller.organizationId;
  return db
    .select({ org: organizations, relation: memberships.relation })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(
      and(
        eq(memberships.userId, caller.userId),
        eq(memberships.status, "active"),
        eq(organizations.state, "active"),
        only === undefined ? undefined : eq(organizations.id, only),
      ),
    )
    .orderBy(organizations.name);
}

export async function updateOrganization(db: Database, orgId: string, body: EntitiesPutPostRequest): Promise<OrganizationRow | undefined> {
  const [row] = await db
    .update(organizations)
    .set({
      ...(body.organization_name !== undefined ? { name: body.organization_name } : {}),
      ...(body.company_name !== undefined ? { companyName: body.company_name } : {}),
      ...(body.billing_addr !== undefined ? { billingAddress: body.billing_addr } : {}),
      ...(body.tax_id !== undefined ? { taxId: body.tax_id } : {}),
      ...(body.tax_id_type !== undefined ? { taxIdType: body.tax_id_type } : {}),
      updatedAt: new Date(),
    })
    .where(eq(organizations.id, orgId))
    .returning();
  return row;
}
