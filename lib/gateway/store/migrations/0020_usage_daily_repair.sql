-- Days whose sums a rolling deploy over 0018 may have left wrong. Before 0018 began by locking
-- usage_records, a usage write by a replica of the version before it that committed while 0018
-- rebuilt the daily sums was left out of the rebuild, and the old trigger body then summed it into
-- usage_daily without its product line (rows with product_line = ''). Each such day is summed again
-- from its records and rendered again; in a store without them this reads usage_daily once and
-- changes nothing. Writers wait for the repair (the same lock as 0018's).
LOCK TABLE "usage_records" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
SELECT "usage_daily_resum"(array_agg(k."organization_id"), array_agg(k."usage_date"))
FROM (SELECT DISTINCT "organization_id", "usage_date" FROM "usage_daily" WHERE "product_line" = '') k
HAVING count(*) > 0;
