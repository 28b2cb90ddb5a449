import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Signatures of mutating calls already accepted, each kept only while it could still
 * be accepted (its timestamp plus the allowed skew): a second use is a replay. In the
 * store, so replicas sharing PostgreSQL refuse each other's replays.
 */
export const requestSignatures = pgTable(
  "request_signatures",
  {
    signature: text("signature").primaryKey(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("request_signatures_expires_idx").on(t.expiresAt)],
);
