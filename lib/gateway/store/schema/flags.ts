import { index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";

export const featureFlags = pgTable("feature_flags", {
  key: text("key").primaryKey(),
  description: text("description").notNull().default(""),
  defaultValue: jsonb("default_value").$type<unknown>().notNull(),
});

/**
 * Targeting: the value of a flag for a user, an organization or a project. When
 * several rules match, the most specific wins: project, then user, then organization.
 */
export const featureFlagRules = pgTable(
  "feature_flag_rules",
  {
    id: text("id").primaryKey(),
    flagKey: text("flag_key")
      .notNull()
      .references(() => featureFlags.key, { onDelete: "cascade" }),
    /** "organization", "user" or "project". */
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    value: jsonb("value").$type<unknown>().notNull(),
    priority: integer("priority").notNull().default(0),
  },
  (t) => [index("flag_rules_target_idx").on(t.targetType, t.targetId)],
);
