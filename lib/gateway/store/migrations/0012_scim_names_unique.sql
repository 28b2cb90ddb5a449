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
CREATE UNIQUE INDEX "scim_groups_name_uq" ON "scim_groups" USING btree ("integration_id",lower("display_name"));--> statement-breakpoint
-- As in migration 0006, except that the membership's insert yields only to the same person already
-- here: a userName another request took meanwhile is the unique index's error, and nothing is written.
CREATE OR REPLACE FUNCTION "scim_provision_person"(
  p_org text, p_integration text, p_user_name text, p_external_id text, p_attributes jsonb, p_emails text[], p_status text,
  p_email text, p_account_name text, p_now timestamptz,
  p_actor_id text, p_actor_name text, p_client_ip text, p_start timestamptz
) RETURNS TABLE ("outcome" text, "id" text, "email" text, "name" text) LANGUAGE plpgsql AS $$
DECLARE
  v_id text;
  v_email text;
  v_name text;
BEGIN
  IF EXISTS (SELECT 1 FROM memberships m WHERE m.organization_id = p_org AND lower(m.scim_user_name) = lower(p_user_name))
     OR EXISTS (SELECT 1 FROM users u JOIN memberships m ON m.user_id = u.id AND m.organization_id = p_org
                WHERE u.email IN (p_user_name, lower(p_user_name)) AND m.scim_user_name IS NULL) THEN
    RETURN QUERY SELECT 'userNameTaken'::text, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;
  INSERT INTO users AS u (id, email, name) VALUES (gen_random_uuid()::text, p_email, p_account_name)
    ON CONFLICT DO NOTHING RETURNING u.id, u.email, u.name INTO v_id, v_email, v_name;
  IF v_id IS NULL THEN
    SELECT u.id, u.email, u.name INTO v_id, v_email, v_name FROM users u WHERE u.email = p_email;
  END IF;
  INSERT INTO memberships (organization_id, user_id, relation, status, source, scim_integration_id, scim_user_name, external_id,
                           scim_attributes, scim_emails, created_at, updated_at)
    VALUES (p_org, v_id, 'member', p_status, 'scim', p_integration, p_user_name, p_external_id, p_attributes, p_emails, p_now, p_now)
    ON CONFLICT (organization_id, user_id) DO NOTHING;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'alreadyMember'::text, v_id, v_email, v_name;
    RETURN;
  END IF;
  INSERT INTO role_bindings (id, organization_id, user_id, role_id, scope_type, scope_object_id)
    SELECT gen_random_uuid()::text, p_org, v_id, r.id, 'org', p_org FROM roles r
    WHERE r.organization_id = p_org AND r.role_name = 'Organization Member'
    ON CONFLICT DO NOTHING;
  INSERT INTO audit_log (id, organization_id, organization_name, project_id, project_name, action, action_detail, actor_id, actor_email, actor_type,
                         client_ip, start_time, end_time, result, error_message, surface, locations, target_ids, target_names, target_type)
    SELECT gen_random_uuid()::text, o.id, o.name, NULL, NULL, 'Create', 'SCIM: Create User', p_actor_id, p_actor_name, 'SCIM',
           p_client_ip, p_start, clock_timestamp(), 'OK', '', 'SCIM', ARRAY[]::text[], ARRAY[v_id], ARRAY[left(p_user_name, 256)], 'User'
    FROM organizations o WHERE o.id = p_org;
  RETURN QUERY SELECT 'created'::text, v_id, v_email, v_name;
END;
$$;
