import "server-only";
import { bigserial, boolean, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * The console's own tables. They live beside the gateway's (same database when the
 * gateway is embedded), so every name carries the console_ prefix and the console
 * keeps its own migrations and migrations table.
 */
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** The key vault: one row per signed-in browser session; the cookie holds only the id. */
export const sessions = pgTable(
  "console_sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    email: text("email").notNull(),
    accessKeyId: text("access_key_id").notNull(),
    /** AES-256-GCM under a key derived from AUTH_SECRET, bound to the row id; empty once revoked. */
    secretCiphertext: text("secret_ciphertext").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    lastSeenAt: ts("last_seen_at").notNull().defaultNow(),
    /** Absolute end of the session; the idle limit is checked against last_seen_at. */
    expiresAt: ts("expires_at").notNull(),
    /** Set when the gateway refused the key: the row stays (without its secret) so the user learns why. */
    endedReason: text("ended_reason"),
    /**
     * The SSO provider that signed this session in; null for a key sign-in. Such a session signs with a
     * key minted for it alone, deleted when the session ends, and ends when its provider is deleted.
     */
    ssoProviderId: text("sso_provider_id"),
    /**
     * An organization of the person requires MFA and no second factor has been given yet: until it is,
     * no page and no /api/cloud call answers this session (only the MFA step of sign-in does).
     */
    mfaPending: boolean("mfa_pending").notNull().default(false),
    /** How the session was signed in, in order: "api_key" or "sso", then "totp", "webauthn", "recovery_code" or "grace". */
    factors: text("factors").array().notNull().default([]),
    /** The WebAuthn challenge this session was last given (registration or assertion); spent by its answer. */
    webauthnChallenge: text("webauthn_challenge"),
  },
  (t) => [
    index("console_sessions_expires_idx").on(t.expiresAt),
    index("console_sessions_last_seen_idx").on(t.lastSeenAt),
    index("console_sessions_sso_provider_idx").on(t.ssoProviderId),
  ],
);

/** Failed sign-ins per client address, shared by every console replica. */
export const signInAttempts = pgTable(
  "console_sign_in_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    clientKey: text("client_key").notNull(),
    failedAt: ts("failed_at").notNull().defaultNow(),
  },
  (t) => [
    index("console_sign_in_attempts_client_idx").on(t.clientKey, t.failedAt),
    // The sweep of failures past every window, whoever's (rate-limit.ts).
    index("console_sign_in_attempts_failed_idx").on(t.failedAt),
  ],
);
