-- Role bindings granted through a SCIM group that no longer exists. Deleting a SCIM integration
-- deleted its groups by cascade but left the bindings they granted (via_group_id has no foreign key:
-- a direct binding holds ''), still in force, and the IAM apply refuses to delete a group-granted
-- binding: nothing could remove them. The service now deletes them with the integration; these are
-- the ones it left before.
DELETE FROM "role_bindings" b
 WHERE b."via_group_id" <> ''
   AND NOT EXISTS (SELECT 1 FROM "scim_groups" g WHERE g."id" = b."via_group_id");
