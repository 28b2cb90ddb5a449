-- Container registry tokens of people who left an organization, or were suspended there: removal and suspension now
-- delete them in their transaction (endOrganizationCredentials), as they end the person's SCIM tokens and S3 keys;
-- these are what they left before.
DELETE FROM "registry_tokens" t
 WHERE NOT EXISTS (SELECT 1 FROM "memberships" m
                    WHERE m."organization_id" = t."organization_id" AND m."user_id" = t."user_id" AND m."status" = 'active');
