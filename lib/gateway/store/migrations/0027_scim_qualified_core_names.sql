-- Core User attributes an identity provider sent by their fully qualified names (RFC 7644 §3.10:
-- "urn:ietf:params:scim:schemas:core:2.0:User:password"), or inside an object under the core schema's URN, were
-- kept as sent: a write-only password among them (RFC 7643 §4.1.1), stored as text and answered back. They are
-- now read as the bare attributes (spelledResource), so none is kept; these are the ones kept before. The
-- identity provider sends its attributes again on its next update.
UPDATE "memberships" m
   SET "scim_attributes" = (SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb)
                              FROM jsonb_each(m."scim_attributes") e
                             WHERE lower(e.key) NOT LIKE 'urn:ietf:params:scim:schemas:core:2.0:user%')
 WHERE jsonb_typeof(m."scim_attributes") = 'object'
   AND EXISTS (SELECT 1 FROM jsonb_object_keys(m."scim_attributes") k WHERE lower(k) LIKE 'urn:ietf:params:scim:schemas:core:2.0:user%');
