-- Built after the migrations, without holding up writes (lib/db/online-indexes.ts).
-- A value of an enumerated audit filter that few entries hold, or none (a typo: actions=Restore),
-- is found by its own index: on the time index alone, such a search read every entry of the
-- organization before its page filled, or never did (0.6 s at 600,000 entries, and ten times that
-- at ten times the entries). Each holds (organization, value) only: equal keys share a posting
-- list (btree deduplication), so each is small, and from the values' statistics the planner reads
-- a rare value's few entries here and sorts them, and a common value's page from the time index.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "audit_action_idx" ON "audit_log" USING btree ("organization_id",lower("action"));--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "audit_actor_type_idx" ON "audit_log" USING btree ("organization_id",lower("actor_type"));--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "audit_target_type_idx" ON "audit_log" USING btree ("organization_id",lower("target_type"));--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "audit_result_idx" ON "audit_log" USING btree ("organization_id",lower("result"));--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "audit_surface_idx" ON "audit_log" USING btree ("organization_id",lower("surface"));--> statement-breakpoint
