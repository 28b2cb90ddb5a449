ALTER TABLE "console_sessions" ADD COLUMN "sso_provider_id" text;--> statement-breakpoint
CREATE INDEX "console_sessions_sso_provider_idx" ON "console_sessions" USING btree ("sso_provider_id");