-- What people who left an organization, or were suspended there, made to act for it: removal and
-- suspension now end it in their transaction (endOrganizationCredentials); these are what they left
-- before. A SCIM token whose maker is no active person of the organization is deleted (a kept secret
-- could provision the maker back into the groups that grant roles); their S3 keys there are disabled.
DELETE FROM "scim_tokens" t
 WHERE NOT EXISTS (SELECT 1 FROM "memberships" m
                    WHERE m."organization_id" = t."organization_id" AND m."user_id" = t."user_id" AND m."status" = 'active');
--> statement-breakpoint
UPDATE "s3_keys" k SET "enabled" = false
 WHERE k."enabled"
   AND NOT EXISTS (SELECT 1 FROM "memberships" m
                    WHERE m."organization_id" = k."organization_id" AND m."user_id" = k."user_id" AND m."status" = 'active');
