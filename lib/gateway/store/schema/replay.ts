import { boolean, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Signatures of mutating calls, each kept only while it could still be accepted (its
 * timestamp plus the allowed skew). A call claims its signature before its handler runs
 * (`spent` false), and its change spends it in the change's own transaction: a second use of
 * a spent signature is a replay, while a retry of a call that changed nothing (a 4xx, a 503, a
 * lost answer before the commit) is taken, with the same body only. In the store, so replicas
 * sharing PostgreSQL refuse each other's replays.
 */
export const requestSignatures = pgTable(
  "request_signatures",
  {
    signature: text("signature").primaryKey(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    /** SHA-256 of the body the signature was first sent with (base64url); null on records written before it was kept. */
    bodyDigest: text("body_digest"),
    /**
     * Whether a change was made under it. True by default: a record written by a replica from before
     * claims (a rolling upgrade) is refused again, as it was then.
     */
    spent: boolean("spent").notNull().default(true),
  },
  (t) => [index("request_signatures_expires_idx").on(t.expiresAt)],
);
