-- Audit-log searches by project, actor and actor e-mail read one page of their own index, newest
-- first, however rare the value: on the time index alone, a rare (or absent) value read every
-- entry of the organization before its page filled (or never).
CREATE INDEX "audit_project_time_idx" ON "audit_log" USING btree ("organization_id","project_id","start_time" DESC NULLS LAST,"seq" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_actor_time_idx" ON "audit_log" USING btree ("organization_id","actor_id","start_time" DESC NULLS LAST,"seq" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_actor_email_time_idx" ON "audit_log" USING btree ("organization_id",lower("actor_email"),"start_time" DESC NULLS LAST,"seq" DESC NULLS LAST);--> statement-breakpoint
-- Usage summed per organization, day, project, resource type, region, metric and reservation
-- ('' on demand), in the order the charts list them: a chart reads a day's few hundred sums in
-- key order instead of its thousands of rows. Kept by
-- the triggers below, whoever writes usage_records: an INSERT adds its rows' sums; an UPDATE
-- or DELETE sums the days it touched again.
CREATE TABLE "usage_daily" (
	"organization_id" text NOT NULL,
	"usage_date" date NOT NULL,
	"project_id" text NOT NULL,
	"resource_type" text NOT NULL,
	"region" text NOT NULL,
	"billable_metric" text NOT NULL,
	"reservation_id" text DEFAULT '' NOT NULL,
	"quantity" numeric NOT NULL,
	"cost" numeric NOT NULL,
	"min_unit_price" numeric(12, 6) NOT NULL,
	"max_unit_price" numeric(12, 6) NOT NULL,
	"records" bigint NOT NULL,
	"recorded_at" timestamp with time zone NOT NULL,
	CONSTRAINT "usage_daily_pk" PRIMARY KEY("organization_id","usage_date","project_id","resource_type","region","billable_metric","reservation_id")
);
--> statement-breakpoint
INSERT INTO "usage_daily"
SELECT "organization_id", "usage_date", "project_id", "resource_type", "region", "billable_metric", coalesce("reservation_id", ''),
	sum("quantity"), sum("cost"), min("unit_price"), max("unit_price"), count(*), max("recorded_at")
FROM "usage_records"
GROUP BY 1, 2, 3, 4, 5, 6, 7;--> statement-breakpoint
-- Each day's chart points as JSON, rendered from usage_daily whenever the day's usage changes:
-- a chart over 90 days (tens of thousands of points for a large organization) is then 90 strings
-- joined, not tens of thousands of rows summed, sorted, sent and serialized on every request.
-- "billing" holds the billing chart's points (summed over reservations), "usage" the usage chart's;
-- each is a comma-separated list of JSON objects in the charts' order.
CREATE TABLE "usage_day_json" (
	"organization_id" text NOT NULL,
	"usage_date" date NOT NULL,
	"billing" text NOT NULL,
	"usage" text NOT NULL,
	"recorded_at" timestamp with time zone NOT NULL,
	CONSTRAINT "usage_day_json_pk" PRIMARY KEY("organization_id","usage_date")
);
--> statement-breakpoint
-- Kept out of line but not compressed: a chart reads 90 of these whole on every request.
ALTER TABLE "usage_day_json" ALTER COLUMN "billing" SET STORAGE EXTERNAL;--> statement-breakpoint
ALTER TABLE "usage_day_json" ALTER COLUMN "usage" SET STORAGE EXTERNAL;--> statement-breakpoint
CREATE FUNCTION "usage_day_render"("orgs" text[], "days" date[]) RETURNS void LANGUAGE sql AS $$
	DELETE FROM "usage_day_json" j USING unnest("orgs", "days") AS k("org", "day")
	WHERE j."organization_id" = k."org" AND j."usage_date" = k."day";
	INSERT INTO "usage_day_json" ("organization_id", "usage_date", "billing", "usage", "recorded_at")
	SELECT k."org", k."day",
		(SELECT coalesce(string_agg(row_to_json(b)::text, ',' ORDER BY b."project_id", b."resource_type", b."region", b."billable_metric"), '')
		FROM (
			SELECT "billable_metric", sum("cost") AS "cost", to_char("usage_date", 'YYYY-MM-DD') AS "date", "project_id", sum("quantity") AS "quantity",
				"region", "resource_type",
				coalesce(CASE WHEN min("min_unit_price") = max("max_unit_price") THEN min("min_unit_price")
					ELSE round(sum("cost") / nullif(sum("quantity"), 0), 6) END, 0) AS "unit_price"
			FROM "usage_daily" WHERE "organization_id" = k."org" AND "usage_date" = k."day"
			GROUP BY "usage_date", "project_id", "resource_type", "region", "billable_metric"
		) b),
		(SELECT coalesce(string_agg(row_to_json(x)::text, ',' ORDER BY x."project_id", x."resource_type", x."region", x."billable_metric", x."reservation_id"), '')
		FROM (
			SELECT "billable_metric", to_char("usage_date", 'YYYY-MM-DD') AS "date", "project_id", "quantity", "region", "reservation_id", "resource_type"
			FROM "usage_daily" WHERE "organization_id" = k."org" AND "usage_date" = k."day"
		) x),
		(SELECT max("recorded_at") FROM "usage_daily" WHERE "organization_id" = k."org" AND "usage_date" = k."day")
	FROM unnest("orgs", "days") AS k("org", "day")
	WHERE EXISTS (SELECT 1 FROM "usage_daily" WHERE "organization_id" = k."org" AND "usage_date" = k."day");
$$;--> statement-breakpoint
SELECT "usage_day_render"(array_agg(k."organization_id"), array_agg(k."usage_date"))
FROM (SELECT DISTINCT "organization_id", "usage_date" FROM "usage_daily") k;--> statement-breakpoint
CREATE FUNCTION "usage_daily_resum"("orgs" text[], "days" date[]) RETURNS void LANGUAGE sql AS $$
	DELETE FROM "usage_daily" d USING unnest("orgs", "days") AS k("org", "day")
	WHERE d."organization_id" = k."org" AND d."usage_date" = k."day";
	INSERT INTO "usage_daily"
	SELECT u."organization_id", u."usage_date", u."project_id", u."resource_type", u."region", u."billable_metric", coalesce(u."reservation_id", ''),
		sum(u."quantity"), sum(u."cost"), min(u."unit_price"), max(u."unit_price"), count(*), max(u."recorded_at")
	FROM unnest("orgs", "days") AS k("org", "day")
	JOIN "usage_records" u ON u."organization_id" = k."org" AND u."usage_date" = k."day"
	GROUP BY 1, 2, 3, 4, 5, 6, 7;
	SELECT "usage_day_render"("orgs", "days");
$$;--> statement-breakpoint
CREATE FUNCTION "usage_daily_added"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "usage_daily" AS d
	SELECT "organization_id", "usage_date", "project_id", "resource_type", "region", "billable_metric", coalesce("reservation_id", ''),
		sum("quantity"), sum("cost"), min("unit_price"), max("unit_price"), count(*), max("recorded_at")
	FROM "new_usage"
	GROUP BY 1, 2, 3, 4, 5, 6, 7
	ON CONFLICT ON CONSTRAINT "usage_daily_pk" DO UPDATE SET
		"quantity" = d."quantity" + excluded."quantity",
		"cost" = d."cost" + excluded."cost",
		"min_unit_price" = least(d."min_unit_price", excluded."min_unit_price"),
		"max_unit_price" = greatest(d."max_unit_price", excluded."max_unit_price"),
		"records" = d."records" + excluded."records",
		"recorded_at" = greatest(d."recorded_at", excluded."recorded_at");
	PERFORM "usage_day_render"(array_agg(k."organization_id"), array_agg(k."usage_date"))
	FROM (SELECT DISTINCT "organization_id", "usage_date" FROM "new_usage") k;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE FUNCTION "usage_daily_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	"orgs" text[];
	"days" date[];
BEGIN
	SELECT array_agg(k."organization_id"), array_agg(k."usage_date") INTO "orgs", "days"
	FROM (SELECT DISTINCT "organization_id", "usage_date" FROM "old_usage") k;
	IF "orgs" IS NOT NULL THEN
		PERFORM "usage_daily_resum"("orgs", "days");
	END IF;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE FUNCTION "usage_daily_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	"orgs" text[];
	"days" date[];
BEGIN
	SELECT array_agg(k."organization_id"), array_agg(k."usage_date") INTO "orgs", "days"
	FROM (SELECT "organization_id", "usage_date" FROM "old_usage" UNION SELECT "organization_id", "usage_date" FROM "new_usage") k;
	IF "orgs" IS NOT NULL THEN
		PERFORM "usage_daily_resum"("orgs", "days");
	END IF;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE FUNCTION "usage_daily_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	TRUNCATE "usage_daily", "usage_day_json";
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "usage_daily_insert" AFTER INSERT ON "usage_records" REFERENCING NEW TABLE AS "new_usage" FOR EACH STATEMENT EXECUTE FUNCTION "usage_daily_added"();--> statement-breakpoint
CREATE TRIGGER "usage_daily_update" AFTER UPDATE ON "usage_records" REFERENCING OLD TABLE AS "old_usage" NEW TABLE AS "new_usage" FOR EACH STATEMENT EXECUTE FUNCTION "usage_daily_updated"();--> statement-breakpoint
CREATE TRIGGER "usage_daily_delete" AFTER DELETE ON "usage_records" REFERENCING OLD TABLE AS "old_usage" FOR EACH STATEMENT EXECUTE FUNCTION "usage_daily_deleted"();--> statement-breakpoint
CREATE TRIGGER "usage_daily_truncate" AFTER TRUNCATE ON "usage_records" FOR EACH STATEMENT EXECUTE FUNCTION "usage_daily_truncated"();
