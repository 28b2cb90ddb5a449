-- Usage writes of one organization's day, one after the other. Each writing statement's trigger sums
-- its rows into usage_daily and renders the day again (delete, then insert, of its usage_day_json
-- row). Two transactions writing the same day at once on PostgreSQL (two replicas, or two
-- connections of one) did that at the same time: the second's insert of the day's row waited for
-- the first's and failed with a duplicate key when the first committed, and statements spanning
-- several days could deadlock. Now each trigger first takes a transaction lock on each of its
-- days (hashed into 256 slots, taken in slot order, so two writers never wait for each other in a
-- circle, and a statement spanning years of days holds at most 256 of the server's lock slots), and
-- every statement after it reads what the writer before it committed (READ COMMITTED takes a
-- snapshot per statement of a function).
CREATE FUNCTION "usage_days_lock"("orgs" text[], "days" date[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	"slot" integer;
BEGIN
	FOR "slot" IN
		SELECT DISTINCT hashtext(k."org" || ':' || k."day"::text) & 255 FROM unnest("orgs", "days") AS k("org", "day") ORDER BY 1
	LOOP
		PERFORM pg_advisory_xact_lock(hashtext('stratus.usage_day'), "slot");
	END LOOP;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "usage_daily_added"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	"orgs" text[];
	"days" date[];
BEGIN
	SELECT array_agg(k."organization_id"), array_agg(k."usage_date") INTO "orgs", "days"
	FROM (SELECT DISTINCT "organization_id", "usage_date" FROM "new_usage") k;
	IF "orgs" IS NULL THEN
		RETURN NULL;
	END IF;
	PERFORM "usage_days_lock"("orgs", "days");
	INSERT INTO "usage_daily" AS d ("organization_id", "usage_date", "project_id", "resource_type", "region", "billable_metric", "reservation_id", "product_line", "project_name",
		"quantity", "cost", "min_unit_price", "max_unit_price", "records", "recorded_at")
	SELECT "organization_id", "usage_date", "project_id", "resource_type", "region", "billable_metric", coalesce("reservation_id", ''), "product_line", "project_name",
		sum("quantity"), sum("cost"), min("unit_price"), max("unit_price"), count(*), max("recorded_at")
	FROM "new_usage"
	GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
	ON CONFLICT ON CONSTRAINT "usage_daily_pk" DO UPDATE SET
		"quantity" = d."quantity" + excluded."quantity",
		"cost" = d."cost" + excluded."cost",
		"min_unit_price" = least(d."min_unit_price", excluded."min_unit_price"),
		"max_unit_price" = greatest(d."max_unit_price", excluded."max_unit_price"),
		"records" = d."records" + excluded."records",
		"recorded_at" = greatest(d."recorded_at", excluded."recorded_at");
	PERFORM "usage_day_render"("orgs", "days");
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "usage_daily_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	"orgs" text[];
	"days" date[];
BEGIN
	SELECT array_agg(k."organization_id"), array_agg(k."usage_date") INTO "orgs", "days"
	FROM (SELECT DISTINCT "organization_id", "usage_date" FROM "old_usage") k;
	IF "orgs" IS NOT NULL THEN
		PERFORM "usage_days_lock"("orgs", "days");
		PERFORM "usage_daily_resum"("orgs", "days");
	END IF;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "usage_daily_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	"orgs" text[];
	"days" date[];
BEGIN
	SELECT array_agg(k."organization_id"), array_agg(k."usage_date") INTO "orgs", "days"
	FROM (SELECT "organization_id", "usage_date" FROM "old_usage" UNION SELECT "organization_id", "usage_date" FROM "new_usage") k;
	IF "orgs" IS NOT NULL THEN
		PERFORM "usage_days_lock"("orgs", "days");
		PERFORM "usage_daily_resum"("orgs", "days");
	END IF;
	RETURN NULL;
END
$$;
