-- Attributes two SCIM PATCH bugs (fixed 2026-11-30) stored in place of what an operation meant, and every read of the
-- person has returned since as attributes of theirs:
-- - a path-less value's key with a value filter (`emails[type eq "work"].value`) became an attribute named after the
--   filter (`emails[type eq "work"]`), the e-mail left as it was;
-- - the enterprise extension's URN as a path became an attribute `urn:…:enterprise:2.0` (the value under `User`), the
--   extension left as it was.
-- Neither ever took effect, and the identity provider sends its values again at its next sync, through the fixed PATCH.
-- At the top level, what is neither an attribute name (RFC 7643 §2.1, as the PATCH now requires) nor a schema's URN,
-- which ends in one, goes.
UPDATE "memberships" SET "scim_attributes" = (
  SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb) FROM jsonb_each("scim_attributes") e
   WHERE e.key ~ '^[A-Za-z][A-Za-z0-9_-]*$' OR e.key ~ '^urn:[A-Za-z0-9:._-]+:[A-Za-z][A-Za-z0-9_-]*$')
 WHERE jsonb_typeof("scim_attributes") = 'object'
   AND EXISTS (SELECT 1 FROM jsonb_object_keys("scim_attributes") k
                WHERE NOT (k ~ '^[A-Za-z][A-Za-z0-9_-]*$' OR k ~ '^urn:[A-Za-z0-9:._-]+:[A-Za-z][A-Za-z0-9_-]*$'));
