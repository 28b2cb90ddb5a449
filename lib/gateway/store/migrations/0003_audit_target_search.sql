CREATE TABLE "audit_log_targets" (
	"seq" bigint NOT NULL,
	"organization_id" text NOT NULL,
	"start_time" timestamp with time zone NOT NULL,
	"kind" text NOT NULL,
	"value" text NOT NULL,
	CONSTRAINT "audit_log_targets_seq_kind_value_pk" PRIMARY KEY("seq","kind","value")
);
--> statement-breakpoint
DROP INDEX "audit_target_ids_idx";--> statement-breakpoint
DROP INDEX "audit_target_names_idx";--> statement-breakpoint
INSERT INTO "audit_log_targets" ("seq", "organization_id", "start_time", "kind", "value")
SELECT e."seq", e."organization_id", e."start_time", k."kind", k."value"
FROM "audit_log" e
CROSS JOIN LATERAL (
	SELECT 'id', unnest(e."target_ids")
	UNION ALL
	SELECT 'name', unnest(e."target_names")
) AS k("kind", "value")
WHERE k."value" IS NOT NULL
ON CONFLICT DO NOTHING;--> statement-breakpoint
ALTER TABLE "audit_log_targets" ADD CONSTRAINT "audit_log_targets_seq_audit_log_seq_fk" FOREIGN KEY ("seq") REFERENCES "public"."audit_log"("seq") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_targets_search_idx" ON "audit_log_targets" USING btree ("organization_id","kind","value","start_time" DESC NULLS LAST,"seq" DESC NULLS LAST);--> statement-breakpoint
-- Keeps audit_log_targets in step with audit_log, whoever writes the entries. Once per
-- statement, from its transition table: a bulk INSERT … SELECT adds its targets in one go.
CREATE FUNCTION "audit_log_targets_sync"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'UPDATE' THEN
		DELETE FROM "audit_log_targets" t USING "changed_entries" c WHERE t."seq" = c."seq";
	END IF;
	INSERT INTO "audit_log_targets" ("seq", "organization_id", "start_time", "kind", "value")
	SELECT e."seq", e."organization_id", e."start_time", k."kind", k."value"
	FROM "changed_entries" e
	CROSS JOIN LATERAL (
		SELECT 'id', unnest(e."target_ids")
		UNION ALL
		SELECT 'name', unnest(e."target_names")
	) AS k("kind", "value")
	WHERE k."value" IS NOT NULL
	ON CONFLICT DO NOTHING;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "audit_log_targets_insert" AFTER INSERT ON "audit_log" REFERENCING NEW TABLE AS "changed_entries" FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_targets_sync"();--> statement-breakpoint
CREATE TRIGGER "audit_log_targets_update" AFTER UPDATE ON "audit_log" REFERENCING NEW TABLE AS "changed_entries" FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_targets_sync"();
