import { sql } from "drizzle-orm";
import { bigint, boolean, index, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const users = pgTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  name: text("name").notNull().default(""),
  createdAt: ts("created_at").notNull().defaultNow(),
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
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.userId] }), index("memberships_user_idx").on(t.userId)],
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
  },
  (t) => [index("api_keys_user_idx").on(t.userId), index("api_keys_active_idx").on(t.id).where(sql`revoked_at is null`)],
);
