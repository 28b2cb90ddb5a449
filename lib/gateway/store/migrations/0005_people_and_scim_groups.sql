CREATE TABLE "scim_group_mappings" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"integration_id" text NOT NULL,
	"group_display_name" text NOT NULL,
	"role_id" text NOT NULL,
	"scope_type" text NOT NULL,
	"scope_object_id" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scim_group_members" (
	"group_id" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scim_group_members_group_id_user_id_pk" PRIMARY KEY("group_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "scim_groups" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"integration_id" text NOT NULL,
	"display_name" text NOT NULL,
	"external_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "role_bindings_uq";--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "status" text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "source" text DEFAULT 'admin' NOT NULL;--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "last_active_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "scim_integration_id" text;--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "scim_user_name" text;--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "scim_attributes" jsonb;--> statement-breakpoint
ALTER TABLE "role_bindings" ADD COLUMN "via_group_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "scim_group_mappings" ADD CONSTRAINT "scim_group_mappings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_group_mappings" ADD CONSTRAINT "scim_group_mappings_integration_id_scim_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."scim_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_group_mappings" ADD CONSTRAINT "scim_group_mappings_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_group_members" ADD CONSTRAINT "scim_group_members_group_id_scim_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."scim_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_group_members" ADD CONSTRAINT "scim_group_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_groups" ADD CONSTRAINT "scim_groups_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_groups" ADD CONSTRAINT "scim_groups_integration_id_scim_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."scim_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "scim_group_mappings_uq" ON "scim_group_mappings" USING btree ("integration_id",lower("group_display_name"),"role_id","scope_type","scope_object_id");--> statement-breakpoint
CREATE INDEX "scim_group_members_user_idx" ON "scim_group_members" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "scim_groups_org_idx" ON "scim_groups" USING btree ("organization_id","integration_id");--> statement-breakpoint
CREATE INDEX "scim_groups_name_idx" ON "scim_groups" USING btree ("integration_id",lower("display_name"));--> statement-breakpoint
CREATE INDEX "memberships_scim_user_name_idx" ON "memberships" USING btree ("organization_id",lower("scim_user_name"));--> statement-breakpoint
CREATE INDEX "memberships_external_id_idx" ON "memberships" USING btree ("organization_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "role_bindings_uq" ON "role_bindings" USING btree ("user_id","role_id","scope_type","scope_object_id","via_group_id");