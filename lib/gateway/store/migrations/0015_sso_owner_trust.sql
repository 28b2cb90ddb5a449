-- A provider signs in the organization's owners only when an owner added it (sso.handlers.ts), so that
-- holding sso.manage does not reach an owner's account through a provider of one's own. Who added the
-- providers that exist already is not recorded: they keep signing owners in, as they did (an owner who
-- must sign in with SSO would otherwise be locked out); a new provider is trusted only as its adder is.
ALTER TABLE "sso_providers" ADD COLUMN "signs_in_owners" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "sso_providers" ALTER COLUMN "signs_in_owners" SET DEFAULT false;
