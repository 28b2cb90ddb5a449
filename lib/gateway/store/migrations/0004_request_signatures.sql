CREATE TABLE "request_signatures" (
	"signature" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "request_signatures_expires_idx" ON "request_signatures" USING btree ("expires_at");