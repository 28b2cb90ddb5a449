import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, type AnyPgColumn } from "drizzle-orm/pg-core";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const users = pgTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  name: text("name").notNull().default(""),
  createdAt: ts("created_at").notNull().defaultNow(),
  /**
   * The account's home: the first organization that had it as a person (set by a trigger on
   * memberships, migration 0013; kept when the person leaves and comes back). While the account is a
   * person there, it alone decides what belongs to the account (lib/gateway/store/queries/access.ts).
   */
  homeOrganizationId: text("home_organization_id").references((): AnyPgColumn => organizations.id, { onDelete: "set null" }),
  /**
   * When an admin last reset the account's second factors, and the access key that made the reset: every console
   * session of the account begun before then ends, but one signing with that key (the admin resetting their own).
   * However the reset came (the console, a script, the API), a session that planted a factor goes with it.
   */
  factorsResetAt: ts("factors_reset_at"),
  factorsResetByKey: text("factors_reset_by_key"),
});

export interface BillingAddress {
  address_line1: string;
  address_line2?: string;
  city: string;
  state_or_region: string;
  postal_code: string;
  country: string;
}

export const organizations = pgTable("organizations", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  companyName: text("company_name").notNull().default(""),
  organizationType: text("organization_type").notNull().default("standard"),
  registrationType: text("registration_type").notNull().default("self_serve"),
  state: text("state").notNull().default("active"),
  stateReason: text("state_reason").notNull().default(""),
  taxId: text("tax_id"),
  taxIdType: text("tax_id_type"),
  billingAddress: jsonb("billing_addr").$type<BillingAddress>(),
  /** Account balance in integer cents (money is never a float in the store). */
  balanceCents: bigint("balance_cents", { mode: "number" }).notNull().default(0),
  billingMethod: text("billing_method").notNull().default("stripe"),
  delinquent: boolean("delinquent").notNull().default(false),
  hasValidPaymentMethod: boolean("has_valid_payment_method").notNull().default(true),
  /** Days a person without a required MFA method may still sign in without enrolling, counted from when MFA was first required. */
  mfaGraceDays: integer("mfa_grace_days").notNull().default(0),
  /**
   * When the organization began requiring MFA (null: it requires none): set as its set of methods goes from none to
   * some, kept while methods change, cleared when none are left. The grace counts from it.
   */
  mfaRequiredSince: ts("mfa_required_since"),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

export const memberships = pgTable(
  "memberships",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** "owner" or "member". */
    relation: text("relation").notNull(),
    /** "active" or "suspended": a suspended person keeps the account but reaches nothing of this organization. */
    status: text("status").notNull().default("active"),
    /** How the person came to the organization: "invite", "scim", "sso" or "admin". */
    source: text("source").notNull().default("admin"),
    lastActiveAt: ts("last_active_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
    /** The SCIM integration that provisioned (or matched) this person here, if any. */
    scimIntegrationId: text("scim_integration_id"),
    /** SCIM `userName` as the identity provider sent it (case kept); null answers the account's e-mail. */
    scimUserName: text("scim_user_name"),
    /** SCIM `externalId`, the identity provider's own id for the person. */
    externalId: text("external_id"),
    /** The rest of the SCIM User resource as stored (name parts, emails, enterprise extension…). */
    scimAttributes: jsonb("scim_attributes").$type<Record<string, unknown>>(),
    /** The lower-cased values of `emails` in scimAttributes, for the indexed `emails.value eq` lookup. */
    scimEmails: text("scim_emails").array(),
    /** Set by an admin: in the console this person signs in only through the organization's SSO, never with an API key. */
    ssoRequired: boolean("sso_required").notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.userId] }),
    index("memberships_user_idx").on(t.userId),
    // Unique, so that two requests at once cannot both take a name (migration 0012).
    uniqueIndex("memberships_scim_user_name_uq").on(t.organizationId, sql`lower(${t.scimUserName})`),
    index("memberships_external_id_idx").on(t.organizationId, t.externalId),
    index("memberships_scim_emails_idx").using("gin", t.scimEmails),
    // SCIM lists people in creation order, a page at a time.
    index("memberships_org_created_idx").on(t.organizationId, t.createdAt, t.userId),
  ],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    /** The access key id, sent in the Authorization header. */
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull().default(""),
    /** AES-256-GCM ciphertext of the secret: it must be recoverable to verify HMACs. */
    secretCiphertext: text("secret_ciphertext").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    revokedAt: ts("revoked_at"),
    /** Refused from this moment on; null never expires. Keys the console mints for an SSO session end with it. */
    expiresAt: ts("expires_at"),
    /** Minted by the console for a session this SSO provider signed in: deleted with the provider. */
    ssoProviderId: text("sso_provider_id"),
  },
  (t) => [
    index("api_keys_user_idx").on(t.userId),
    index("api_keys_active_idx").on(t.id).where(sql`revoked_at is null`),
    index("api_keys_sso_provider_idx").on(t.ssoProviderId).where(sql`sso_provider_id is not null`),
  ],
);
