-- Usage options (the values each usage and billing filter can take) summed every usage row of the
-- range: 1.5 to 2.3 s over a million rows on PostgreSQL, on the first view after each usage write.
-- Now the daily sums keep the two values the options name that they did not (product line, and the
-- project's name as recorded, for projects since deleted), and each day's options are rendered
-- beside its chart points: options over a range merge a few hundred of these, and only the days
-- rendered again since are read (lib/gateway/store/queries/usage-days.ts, keptUsageOptions).
-- A resource type, and a project's recorded name, are each one product line and one name in
-- practice, so the sums keep the number of rows they had.
-- First, usage writers wait (replicas of the version before, during a rolling deploy): those under
-- way finish and are summed below, those after run the triggers below. A write committed while the
-- sums were rebuilt would have been left out of them, and summed by the triggers it started with.
LOCK TABLE "usage_records" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
ALTER TABLE "usage_daily" DROP CONSTRAINT "usage_daily_pk";--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "product_line" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "project_name" text DEFAULT '' NOT NULL;--> statement-breakpoint
TRUNCATE "usage_daily";--> statement-breakpoint
INSERT INTO "usage_daily" ("organization_id", "usage_date", "project_id", "resource_type", "region", "billable_metric", "reservation_id", "product_line", "project_name",
	"quantity", "cost", "min_unit_price", "max_unit_price", "records", "recorded_at")
SELECT "organization_id", "usage_date", "project_id", "resource_type", "region", "billable_metric", coalesce("reservation_id", ''), "product_line", "project_name",
	sum("quantity"), sum("cost"), min("unit_price"), max("unit_price"), count(*), max("recorded_at")
FROM "usage_records"
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_pk" PRIMARY KEY("organization_id","usage_date","project_id","resource_type","region","billable_metric","reservation_id","product_line","project_name");--> statement-breakpoint
ALTER TABLE "usage_day_json" ADD COLUMN "options" text DEFAULT '' NOT NULL;--> statement-breakpoint
-- One day's filter values, of all its usage or of its usage on demand only: each project with the
-- name its rows recorded (the greatest, when a project was renamed that day), and the resource
-- types, product lines and regions, each in order.
CREATE FUNCTION "usage_day_options"("org" text, "day" date, "on_demand" boolean) RETURNS json LANGUAGE sql STABLE AS $$
	SELECT json_build_object(
		'projects', coalesce((
			SELECT json_object_agg(p."project_id", p."project_name" ORDER BY p."project_id")
			FROM (
				SELECT "project_id", max("project_name") AS "project_name" FROM "usage_daily"
				WHERE "organization_id" = "org" AND "usage_date" = "day" AND ("reservation_id" = '' OR NOT "on_demand")
				GROUP BY "project_id"
			) p), '{}'::json),
		'resource_types', coalesce(array_agg(DISTINCT "resource_type" ORDER BY "resource_type"), '{}'),
		'product_lines', coalesce(array_agg(DISTINCT "product_line" ORDER BY "product_line"), '{}'),
		'regions', coalesce(array_agg(DISTINCT "region" ORDER BY "region"), '{}'))
	FROM "usage_daily"
	WHERE "organization_id" = "org" AND "usage_date" = "day" AND ("reservation_id" = '' OR NOT "on_demand");
$$;--> statement-breakpoint
-- As in 0011, but the usage chart's points sum the rows a point now spans (a product line or a
-- recorded name apart), and the day's options are rendered too.
CREATE OR REPLACE FUNCTION "usage_day_render"("orgs" text[], "days" date[]) RETURNS void LANGUAGE sql AS $$
	DELETE FROM "usage_day_json" j USING unnest("orgs", "days") AS k("org", "day")
	WHERE j."organization_id" = k."org" AND j."usage_date" = k."day";
	INSERT INTO "usage_day_json" ("organization_id", "usage_date", "billing", "usage", "options", "recorded_at")
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
			SELECT "billable_metric", to_char("usage_date", 'YYYY-MM-DD') AS "date", "project_id", sum("quantity") AS "quantity", "region", "reservation_id", "resource_type"
			FROM "usage_daily" WHERE "organization_id" = k."org" AND "usage_date" = k."day"
			GROUP BY "usage_date", "project_id", "resource_type", "region", "billable_metric", "reservation_id"
		) x),
		json_build_object('all', "usage_day_options"(k."org", k."day", false), 'on_demand', "usage_day_options"(k."org", k."day", true))::text,
		(SELECT max("recorded_at") FROM "usage_daily" WHERE "organization_id" = k."org" AND "usage_date" = k."day")
	FROM unnest("orgs", "days") AS k("org", "day")
	WHERE EXISTS (SELECT 1 FROM "usage_daily" WHERE "organization_id" = k."org" AND "usage_date" = k."day");
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "usage_daily_resum"("orgs" text[], "days" date[]) RETURNS void LANGUAGE sql AS $$
	DELETE FROM "usage_daily" d USING unnest("orgs", "days") AS k("org", "day")
	WHERE d."organization_id" = k."org" AND d."usage_date" = k."day";
	INSERT INTO "usage_daily" ("organization_id", "usage_date", "project_id", "resource_type", "region", "billable_metric", "reservation_id", "product_line", "project_name",
		"quantity", "cost", "min_unit_price", "max_unit_price", "records", "recorded_at")
	SELECT u."organization_id", u."usage_date", u."project_id", u."resource_type", u."region", u."billable_metric", coalesce(u."reservation_id", ''), u."product_line", u."project_name",
		sum(u."quantity"), sum(u."cost"), min(u."unit_price"), max(u."unit_price"), count(*), max(u."recorded_at")
	FROM unnest("orgs", "days") AS k("org", "day")
	JOIN "usage_records" u ON u."organization_id" = k."org" AND u."usage_date" = k."day"
	GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
	SELECT "usage_day_render"("orgs", "days");
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "usage_daily_added"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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
	PERFORM "usage_day_render"(array_agg(k."organization_id"), array_agg(k."usage_date"))
	FROM (SELECT DISTINCT "organization_id", "usage_date" FROM "new_usage") k;
	RETURN NULL;
END
$$;--> statement-breakpoint
SELECT "usage_day_render"(array_agg(k."organization_id"), array_agg(k."usage_date"))
FROM (SELECT DISTINCT "organization_id", "usage_date" FROM "usage_daily") k;
