-- SCIM's POST /Users (one statement, this function) holds its integration as every other SCIM change does
-- (lib/gateway/routes/scim/frame.ts, change()): one deleted since the token was checked answers "integrationGone", which
-- the service refuses as a deleted token (401), instead of provisioning a person under an integration that is gone.
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
  -- The integration first, held as every other SCIM change holds it: one deleted since the token was checked (its
  -- tokens with it) provisions nobody, and a deletion starting meanwhile waits until this is done.
  PERFORM 1 FROM scim_integrations i WHERE i.id = p_integration AND i.organization_id = p_org FOR KEY SHARE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'integrationGone'::text, NULL::text, NULL::text, NULL::text;
    RETURN;
  END IF;
  -- Held until the statement's transaction ends; the checks below then see what the other holder committed.
  PERFORM pg_advisory_xact_lock(hashtextextended('stratus.scim_user_name:' || p_org || ':' || lower(p_user_name), 0));
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
