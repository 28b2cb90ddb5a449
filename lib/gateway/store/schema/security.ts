import { index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { organizations } from "./identity";

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

export const ssoProviders = pgTable(
  "sso_providers",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    clientId: text("client_id").notNull(),
    issuerUri: text("issuer_uri").notNull(),
    /** Lower-case domain names whose users sign in through this provider. */
    emailDomains: text("email_domains").array().notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("sso_providers_org_idx").on(t.organizationId)],
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
