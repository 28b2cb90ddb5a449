-- SCIM tokens whose maker no longer holds scim.manage in the organization: a role change that takes the permission away
-- now deletes them in its transaction (endScimTokensOfThoseWithout); these are what role changes left before. A token
-- works on only for an active owner, or an active person a role bound at organization scope grants the permission to.
DELETE FROM "scim_tokens" t
 WHERE NOT EXISTS (
   SELECT 1 FROM "memberships" m
    WHERE m."organization_id" = t."organization_id" AND m."user_id" = t."user_id" AND m."status" = 'active'
      AND (m."relation" = 'owner'
           OR EXISTS (SELECT 1 FROM "role_bindings" b JOIN "roles" r ON r."id" = b."role_id"
                       WHERE b."organization_id" = t."organization_id" AND b."user_id" = t."user_id"
                         AND b."scope_type" = 'org' AND 'scim.manage' = ANY (r."permissions"))));
