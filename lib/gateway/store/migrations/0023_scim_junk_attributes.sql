-- Attributes two SCIM PATCH bugs (fixed 2026-11-30) stored in place of what an operation meant, and every read of the
-- person has returned since as attributes of theirs:
-- - a path-less value's key with a value filter (`emails[type eq "work"].value`) became an attribute named after the
--   filter (`emails[type eq "work"]`), the e-mail left as it was;
-- - the enterprise extension's URN as a path became an attribute `urn:…:enterprise:2.0` (the value under `User`), the
--   extension left as it was.
-- Neither ever took effect. Only those go: a top-level name with a bracket (no attribute's name has one, and a POST or
-- PUT refuses none), and that one URN, whatever its case. Every other name stays as stored (an extension this service
-- does not know included).
UPDATE "memberships" SET "scim_attributes" = (
  SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb) FROM jsonb_each("scim_attributes") e
   WHERE strpos(e.key, '[') = 0 AND lower(e.key) <> 'urn:ietf:params:scim:schemas:extension:enterprise:2.0')
 WHERE jsonb_typeof("scim_attributes") = 'object'
   AND EXISTS (SELECT 1 FROM jsonb_object_keys("scim_attributes") k
                WHERE strpos(k, '[') > 0 OR lower(k) = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0');
