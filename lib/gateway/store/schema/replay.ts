import { boolean, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Signatures of mutating calls, each kept only while it could still be accepted (its
 * timestamp plus the allowed skew). A call claims its signature before its handler runs
 * (`spent` false), and its change spends it in the change's own transaction, as does any answer a
 * client does not retry: a use of a spent signature is a replay, while a retry of a call that
 * changed nothing and was answered 5xx or not at all is taken, with the same body only, a few
 * times. In the store, so replicas sharing PostgreSQL refuse each other's replays.
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
    /** How many times the call was sent under it (its retries included); bounded, as a client's retries are. */
    attempts: integer("attempts").notNull().default(1),
  },
  (t) => [index("request_signatures_expires_idx").on(t.expiresAt)],
);
