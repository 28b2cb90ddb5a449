import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { roles } from "./iam";
import { organizations, users } from "./identity";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const scimIntegrations = pgTable(
  "scim_integrations",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    identityProvider: text("identity_provider").notNull(),
    /** "active" or "inactive". */
    status: text("status").notNull().default("active"),
    userCount: integer("user_count").notNull().default(0),
    /** The creator's user id; kept as text so the record outlives the user. */
    createdBy: text("created_by").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
    lastActivityAt: ts("last_activity_at"),
  },
  (t) => [index("scim_integrations_org_idx").on(t.organizationId)],
);

export const scimTokens = pgTable(
  "scim_tokens",
  {
    /** The key id, shown in listings and used to delete the token. */
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    integrationId: text("integration_id")
      .notNull()
      .references(() => scimIntegrations.id, { onDelete: "cascade" }),
    alias: text("alias").notNull(),
    /** SHA-256 of the secret: shown once at creation, only ever compared afterwards. */
    secretHash: text("secret_hash").notNull().unique(),
    userId: text("user_id").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    lastUsedAt: ts("last_used_at"),
  },
  (t) => [index("scim_tokens_integration_idx").on(t.organizationId, t.integrationId)],
);

/** A SCIM group, owned by the integration that provisioned it. */
export const scimGroups = pgTable(
  "scim_groups",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    integrationId: text("integration_id")
      .notNull()
      .references(() => scimIntegrations.id, { onDelete: "cascade" }),
    displayName: text("display_name").notNull(),
    externalId: text("external_id"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("scim_groups_org_idx").on(t.organizationId, t.integrationId), uniqueIndex("scim_groups_name_uq").on(t.integrationId, sql`lower(${t.displayName})`)],
);

export const scimGroupMembers = pgTable(
  "scim_group_members",
  {
    groupId: text("group_id")
      .notNull()
      .references(() => scimGroups.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.userId] }), index("scim_group_members_user_idx").on(t.userId)],
);

/** Per integration: members of the group named `group_display_name` hold this role binding. */
export const scimGroupMappings = pgTable(
  "scim_group_mappings",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    integrationId: text("integration_id")
      .notNull()
      .references(() => scimIntegrations.id, { onDelete: "cascade" }),
    groupDisplayName: text("group_display_name").notNull(),
    roleId: text("role_id")
      .notNull()
      .references(() => roles.id, { onDelete: "cascade" }),
    scopeType: text("scope_type").notNull(),
    scopeObjectId: text("scope_object_id").notNull(),
  },
  (t) => [
    uniqueIndex("scim_group_mappings_uq").on(t.integrationId, sql`lower(${t.groupDisplayName})`, t.roleId, t.scopeType, t.scopeObjectId),
  ],
);

export const ssoProviders = pgTable(
  "sso_providers",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    clientId: text("client_id").notNull(),
    /** The client secret, AES-256-GCM under the master key (the console needs it back); write-only through the API. */
    clientSecretCiphertext: text("client_secret_ciphertext"),
    issuerUri: text("issuer_uri").notNull(),
    /** Lower-case domain names whose users sign in through this provider. */
    emailDomains: text("email_domains").array().notNull(),
    /**
     * Whether the provider signs in the organization's owners: only when an owner added it (or it was
     * added before this rule, migration 0015), so that holding sso.manage does not reach an owner's
     * account through a provider of one's own.
     */
    signsInOwners: boolean("signs_in_owners").notNull().default(false),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("sso_providers_org_idx").on(t.organizationId)],
);

/**
 * Who a provider's subject is: the account its first sign-in through the provider signed in. `sub` is
 * the provider's one stable, never reassigned identifier of a person (OpenID Connect Core §2), where an
 * e-mail address can pass to someone else. From then on the provider signs that account in only as
 * that subject, and that subject only as that account. Forgotten when the person leaves the
 * organization, and with the provider.
 */
export const ssoIdentities = pgTable(
  "sso_identities",
  {
    providerId: text("provider_id")
      .notNull()
      .references(() => ssoProviders.id, { onDelete: "cascade" }),
    subject: text("subject").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.providerId, t.subject] }), uniqueIndex("sso_identities_user_uq").on(t.providerId, t.userId)],
);

/** The MFA methods an organization requires; one row per method. */
export const organizationMfaMethods = pgTable(
  "organization_mfa_methods",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    method: text("method").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.method] })],
);

/**
 * A person's second factors for console sign-in (they belong to the account, not to one organization):
 * an authenticator app (TOTP) or a passkey / security key (WebAuthn). A TOTP factor is pending until its
 * first code confirms it (confirmed_at).
 */
export const userMfaFactors = pgTable(
  "user_mfa_factors",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** "totp" or "webauthn" (lib/contract/constants MFA_METHODS). */
    method: text("method").notNull(),
    /** What the person calls it ("Authenticator app", "YubiKey 5"). */
    name: text("name").notNull(),
    /** TOTP: the shared secret, AES-256-GCM under the master key. */
    secretCiphertext: text("secret_ciphertext"),
    /** TOTP: the last time step accepted; a code of that step or an earlier one is refused (no replay). */
    lastTimeStep: bigint("last_time_step", { mode: "number" }),
    /** WebAuthn: the credential id (base64url), its COSE public key (base64url), signature counter and transports. */
    credentialId: text("credential_id").unique(),
    publicKey: text("public_key"),
    signCount: bigint("sign_count", { mode: "number" }).notNull().default(0),
    transports: text("transports").array(),
    createdAt: ts("created_at").notNull().defaultNow(),
    confirmedAt: ts("confirmed_at"),
    lastUsedAt: ts("last_used_at"),
  },
  (t) => [index("user_mfa_factors_user_idx").on(t.userId)],
);

/** One-time recovery codes: SHA-256 of each, spent once (used_at). */
export const userRecoveryCodes = pgTable(
  "user_recovery_codes",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    usedAt: ts("used_at"),
  },
  (t) => [primaryKey({ columns: [t.userId, t.codeHash] })],
);

/**
 * The master key's check value (one row): an HMAC of a fixed label under the key the store's secrets are sealed with.
 * A gateway started with another key (a replica without STRATUS_MASTER_KEY makes its own) refuses to start, naming the
 * variable, instead of answering 500 to every signed call and sealing new secrets no other replica can open.
 */
export const masterKeyCheck = pgTable(
  "master_key_check",
  {
    /** Always 1: the table holds one row, and of two replicas starting together on an empty store one writes it. */
    id: integer("id").primaryKey().default(1),
    checkValue: text("check_value").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [check("master_key_check_one_row", sql`${t.id} = 1`)],
);
