-- When each organization began requiring MFA: the enrolment grace counts from it. Counted from the earliest of the
-- methods required now, an administrator who swapped one method for another (without the owner's right to require
-- none) started everyone's grace again, as often as they liked. Organizations requiring MFA now start from that
-- earliest method, the best this store knows.
ALTER TABLE "organizations" ADD COLUMN "mfa_required_since" timestamp with time zone;--> statement-breakpoint
UPDATE "organizations" o
   SET "mfa_required_since" = m."since"
  FROM (SELECT "organization_id", min("created_at") AS "since" FROM "organization_mfa_methods" GROUP BY "organization_id") m
 WHERE m."organization_id" = o."id";
