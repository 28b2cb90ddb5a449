-- The master key's check value (lib/gateway/master-key-check.ts): a gateway given another key than the one the store's
-- secrets are sealed with refuses to start, instead of answering 500 to every signed call.
CREATE TABLE "master_key_check" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"check_value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "master_key_check_one_row" CHECK ("master_key_check"."id" = 1)
);
