-- The indexes of the audit filters' values are in online/0017_audit_value_indexes.sql: built
-- concurrently after the migrations, so that an audit log of millions of entries takes writes
-- while they are built (here, in the migration's transaction, they stopped every audit write).
-- Locations are an array, whose statistics cannot tell the planner that a location is absent: a
-- search by location goes through audit_log_targets, as a search by target does (one page of the
-- location's entries in time order, however rare). The trigger now files each entry's locations
-- too, and the entries already filed have theirs added.
CREATE OR REPLACE FUNCTION "audit_log_targets_sync"() RETURNS trigger LANGUAGE plpgsql AS $$
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
		UNION ALL
		SELECT 'location', unnest(e."locations")
	) AS k("kind", "value")
	WHERE k."value" IS NOT NULL
	ON CONFLICT DO NOTHING;
	RETURN NULL;
END
$$;--> statement-breakpoint
INSERT INTO "audit_log_targets" ("seq", "organization_id", "start_time", "kind", "value")
SELECT e."seq", e."organization_id", e."start_time", 'location', l."value"
FROM "audit_log" e
CROSS JOIN LATERAL unnest(e."locations") AS l("value")
WHERE l."value" IS NOT NULL
ON CONFLICT DO NOTHING;