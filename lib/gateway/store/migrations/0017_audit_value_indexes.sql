-- A value of an enumerated audit filter that few entries hold, or none (a typo: actions=Restore),
-- is found by its own index: on the time index alone, such a search read every entry of the
-- organization before its page filled, or never did (0.6 s at 600,000 entries, and ten times that
-- at ten times the entries). Each holds (organization, value) only: equal keys share a posting
-- list (btree deduplication), so each is small, and from the values' statistics the planner reads
-- a rare value's few entries here and sorts them, and a common value's page from the time index.
CREATE INDEX "audit_action_idx" ON "audit_log" USING btree ("organization_id",lower("action"));--> statement-breakpoint
CREATE INDEX "audit_actor_type_idx" ON "audit_log" USING btree ("organization_id",lower("actor_type"));--> statement-breakpoint
CREATE INDEX "audit_target_type_idx" ON "audit_log" USING btree ("organization_id",lower("target_type"));--> statement-breakpoint
CREATE INDEX "audit_result_idx" ON "audit_log" USING btree ("organization_id",lower("result"));--> statement-breakpoint
CREATE INDEX "audit_surface_idx" ON "audit_log" USING btree ("organization_id",lower("surface"));--> statement-breakpoint
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