import { boolean, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { organizations, users } from "./identity";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const s3Keys = pgTable(
  "s3_keys",
  {
    /** key_uuid */
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accessKeyId: text("access_key_id").notNull().unique(),
    /** SHA-256 of the secret key, which is shown only in the create response. */
    secretHash: text("secret_hash").notNull(),
    alias: text("alias").notNull().default(""),
    enabled: boolean("enabled").notNull().default(true),
    createdAt: ts("created_at").notNull().defaultNow(),
    expireAt: ts("expire_at"),
  },
  (t) => [index("s3_keys_org_idx").on(t.organizationId, t.createdAt)],
);
