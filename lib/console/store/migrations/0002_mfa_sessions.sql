ALTER TABLE "console_sessions" ADD COLUMN "mfa_pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD COLUMN "factors" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD COLUMN "webauthn_challenge" text;