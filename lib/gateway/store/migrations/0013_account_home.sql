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
-- account's first one makes its home. An account whose home organization was deleted gets no new
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
CREATE TRIGGER "memberships_set_account_home" AFTER INSERT ON "memberships" FOR EACH ROW EXECUTE FUNCTION "set_account_home"();
