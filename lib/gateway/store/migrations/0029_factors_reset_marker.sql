-- An admin's reset of a person's second factors ends the person's console sessions begun before it, however the reset
-- came (lib/console/session.ts): when, and which key made it (a session signing with that key, the admin's own, stays).
ALTER TABLE "users" ADD COLUMN "factors_reset_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "factors_reset_by_key" text;