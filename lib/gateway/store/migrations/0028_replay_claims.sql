-- A mutating call now claims its signature before its handler runs and spends it in its change's transaction
-- (lib/gateway/middleware/replay.ts). Records already kept were each of a call taken: spent, as the default says,
-- so a replica from before this migration, which writes none of these columns, keeps refusing what it refused.
ALTER TABLE "request_signatures" ADD COLUMN "body_digest" text;--> statement-breakpoint
ALTER TABLE "request_signatures" ADD COLUMN "spent" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "request_signatures" ADD COLUMN "attempts" integer DEFAULT 1 NOT NULL;