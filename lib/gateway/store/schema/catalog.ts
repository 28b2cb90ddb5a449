import { index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { organizations, users } from "./identity";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** Available capacity of one VM type in one location. */
export const capacities = pgTable(
  "capacities",
  {
    id: text("id").primaryKey(),
    /** VM type, e.g. h100-80gb-sxm-ib.8x; the product_name filter matches it. */
    type: text("type").notNull(),
    location: text("location").notNull(),
    quantity: integer("quantity").notNull(),
    numSlices: integer("num_slices").notNull(),
    quotaType: text("quota_type").notNull(),
  },
  (t) => [uniqueIndex("capacities_type_location_uq").on(t.type, t.location)],
);

export const images = pgTable("images", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  description: text("description").notNull().default(""),
  tags: text("tags").array().notNull(),
  /** Regions the image is available in. */
  locations: text("locations").array().notNull(),
  /** Product groups (h100, a100, l40s…) whose VMs can boot the image. */
  productGroups: text("product_groups").array().notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
});

/** Regions where container registry repositories can be hosted. */
export const registryLocations = pgTable("registry_locations", {
  id: text("id").primaryKey(),
});

/** Upstream registries a pull-through-cache repository can mirror. */
export const registryProviders = pgTable("registry_providers", {
  id: text("id").primaryKey(),
  description: text("description").notNull().default(""),
});

export const registryTokens = pgTable(
  "registry_tokens",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    alias: text("alias").notNull().default(""),
    /** SHA-256 of the token, which is shown only in the create response. */
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at"),
  },
  (t) => [index("registry_tokens_org_idx").on(t.organizationId)],
);
