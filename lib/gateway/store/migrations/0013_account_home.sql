-- An account's home: the first organization that had it as a person. While the account is a person
-- there, the home alone decides what belongs to the account (its second factors, whether its key
-- opens a console session, its own name); an organization that adds the account later does not, and
-- the home keeps its say when the person leaves it and comes back (lib/gateway/store/queries/access.ts).
ALTER TABLE "users" ADD COLUMN "home_organization_id" text;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_home_organization_id_organizations_id_fk" FOREIGN KEY ("home_organization_id") REFERENCES "public"."organizations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Accounts of stores written before: the organization whose membership is the oldest.
UPDATE "users" u SET "home_organization_id" = (
  SELECT m."organization_id" FROM "memberships" m WHERE m."user_id" = u."id" ORDER BY m."created_at", m."organization_id" LIMIT 1
);--> statement-breakpoint
-- Whoever adds a membership (an invitation, SCIM, an SSO sign-in, the seed, the admin CLI): the
-- account's first one makes its home. (An account made together with its first membership is made
-- with its home, so that it is not written twice: scim_provision_person below, invitePerson.) An account whose home organization was deleted gets no new
-- home while it is a person elsewhere (every organization it belongs to then decides). Two
-- organizations adding a new account at once: the second update waits for the first's row lock,
-- then finds the home set.
CREATE FUNCTION "set_account_home"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE users SET home_organization_id = NEW.organization_id
   WHERE id = NEW.user_id AND home_organization_id IS NULL
     AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = NEW.user_id AND m.organization_id <> NEW.organization_id);
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "memberships_set_account_home" AFTER INSERT ON "memberships" FOR EACH ROW EXECUTE FUNCTION "set_account_home"();--> statement-breakpoint
-- As in migration 0006, except that a new account is made with its home, and that the membership's
-- insert yields only to the same person already here: a userName another request took meanwhile is
-- the unique index of migration 0012's error, and nothing is written.
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
  INSERT INTO users AS u (id, email, name, home_organization_id) VALUES (gen_random_uuid()::text, p_email, p_account_name, p_org)
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
