-- A SCIM userName is unique in its organization, and a SCIM group's displayName in its integration,
-- compared case-insensitively. The service's check before a write cannot keep that on its own: two
-- requests at once both pass it on PostgreSQL. The store now refuses the second (23505 on these two
-- indexes, answered as a SCIM 409 uniqueness).
--
-- Names such a race already doubled keep their first holder; each later one gets its id appended
-- (within the service's 256 characters), so nothing is lost and the identity provider's next update
-- of it answers 409 for an admin to see. A group renamed so no longer matches its group mappings.
-- The tables are locked first: a replica still running the previous version cannot write another
-- double between these updates and the indexes (migrations run in one transaction).
LOCK TABLE "memberships", "scim_groups" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
UPDATE "memberships" m SET "scim_user_name" = left(m."scim_user_name", 256 - length(m."user_id") - 3) || ' (' || m."user_id" || ')'
  FROM (SELECT "organization_id", "user_id",
               row_number() OVER (PARTITION BY "organization_id", lower("scim_user_name") ORDER BY "created_at", "user_id") AS n
          FROM "memberships" WHERE "scim_user_name" IS NOT NULL) d
 WHERE d.n > 1 AND m."organization_id" = d."organization_id" AND m."user_id" = d."user_id";--> statement-breakpoint
UPDATE "scim_groups" g SET "display_name" = left(g."display_name", 256 - length(g."id") - 3) || ' (' || g."id" || ')'
  FROM (SELECT "id", row_number() OVER (PARTITION BY "integration_id", lower("display_name") ORDER BY "created_at", "id") AS n FROM "scim_groups") d
 WHERE d.n > 1 AND g."id" = d."id";--> statement-breakpoint
DROP INDEX "memberships_scim_user_name_idx";--> statement-breakpoint
DROP INDEX "scim_groups_name_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "memberships_scim_user_name_uq" ON "memberships" USING btree ("organization_id",lower("scim_user_name"));--> statement-breakpoint
CREATE UNIQUE INDEX "scim_groups_name_uq" ON "scim_groups" USING btree ("integration_id",lower("display_name"));
-- scim_provision_person yields to the same person only from migration 0013 on (applied with this one).
