CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"secret_ciphertext" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "memberships" (
	"organization_id" text NOT NULL,
	"user_id" text NOT NULL,
	"relation" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memberships_organization_id_user_id_pk" PRIMARY KEY("organization_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"company_name" text DEFAULT '' NOT NULL,
	"organization_type" text DEFAULT 'standard' NOT NULL,
	"registration_type" text DEFAULT 'self_serve' NOT NULL,
	"state" text DEFAULT 'active' NOT NULL,
	"state_reason" text DEFAULT '' NOT NULL,
	"tax_id" text,
	"tax_id_type" text,
	"billing_addr" jsonb,
	"balance_cents" bigint DEFAULT 0 NOT NULL,
	"billing_method" text DEFAULT 'stripe' NOT NULL,
	"delinquent" boolean DEFAULT false NOT NULL,
	"has_valid_payment_method" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_email_unique" UNIQUE("email")
);
--> statement-breakpoint
CREATE TABLE "role_bindings" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role_id" text NOT NULL,
	"scope_type" text NOT NULL,
	"scope_object_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "roles" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"role_name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"allowed_scopes" text[] NOT NULL,
	"permissions" text[] NOT NULL
);
--> statement-breakpoint
CREATE TABLE "disks" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"vm_id" text,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"size" text NOT NULL,
	"block_size" integer NOT NULL,
	"attachment_type" text NOT NULL,
	"mode" text NOT NULL,
	"location" text NOT NULL,
	"serial_number" text NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "locations" (
	"id" text PRIMARY KEY NOT NULL,
	"region" text NOT NULL,
	"description" text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "network_interfaces" (
	"id" text PRIMARY KEY NOT NULL,
	"vm_id" text NOT NULL,
	"name" text NOT NULL,
	"interface_type" text NOT NULL,
	"mac_address" text NOT NULL,
	"network" text NOT NULL,
	"subnet" text NOT NULL,
	"ips" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"position" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vms" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"location" text NOT NULL,
	"state" text NOT NULL,
	"commitment_end" text DEFAULT '' NOT NULL,
	"commitment_period" integer DEFAULT 0 NOT NULL,
	"ssh_destination" text DEFAULT '' NOT NULL,
	"host_channel_adapters" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "feature_flag_rules" (
	"id" text PRIMARY KEY NOT NULL,
	"flag_key" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text NOT NULL,
	"value" jsonb NOT NULL,
	"priority" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "feature_flags" (
	"key" text PRIMARY KEY NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"default_value" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" text NOT NULL,
	"organization_id" text NOT NULL,
	"organization_name" text DEFAULT '' NOT NULL,
	"project_id" text,
	"project_name" text,
	"action" text NOT NULL,
	"action_detail" text DEFAULT '' NOT NULL,
	"actor_id" text NOT NULL,
	"actor_email" text NOT NULL,
	"actor_type" text NOT NULL,
	"client_ip" text DEFAULT '' NOT NULL,
	"start_time" timestamp with time zone NOT NULL,
	"end_time" timestamp with time zone NOT NULL,
	"result" text NOT NULL,
	"error_message" text DEFAULT '' NOT NULL,
	"surface" text NOT NULL,
	"locations" text[] DEFAULT '{}'::text[] NOT NULL,
	"target_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"target_names" text[] DEFAULT '{}'::text[] NOT NULL,
	"target_type" text DEFAULT '' NOT NULL,
	CONSTRAINT "audit_log_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "usage_records" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"project_id" text NOT NULL,
	"project_name" text DEFAULT '' NOT NULL,
	"usage_date" date NOT NULL,
	"region" text NOT NULL,
	"resource_type" text NOT NULL,
	"product_line" text NOT NULL,
	"resource_id" text NOT NULL,
	"resource_name" text NOT NULL,
	"billable_metric" text NOT NULL,
	"quantity" numeric(18, 6) NOT NULL,
	"unit_price" numeric(12, 6) NOT NULL,
	"cost" numeric(16, 2) GENERATED ALWAYS AS (round(quantity * unit_price, 2)) STORED,
	"reservation_id" text,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "org_quotas" (
	"organization_id" text NOT NULL,
	"type" text NOT NULL,
	"max" integer NOT NULL,
	CONSTRAINT "org_quotas_organization_id_type_pk" PRIMARY KEY("organization_id","type")
);
--> statement-breakpoint
CREATE TABLE "gpu_tracking" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"event_time" timestamp with time zone NOT NULL,
	"product_line" text NOT NULL,
	"region" text NOT NULL,
	"regional_capacity" integer NOT NULL,
	"global_capacity" integer NOT NULL,
	"gpu_usage" integer NOT NULL,
	"on_demand_count" integer NOT NULL,
	"price" numeric(12, 4) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reservations" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"reservation_type" text NOT NULL,
	"product_line" text NOT NULL,
	"duration" double precision NOT NULL,
	"quantity" integer NOT NULL,
	"locations" text[] DEFAULT '{}'::text[] NOT NULL,
	"project_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"vm_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"contract_start_date" timestamp with time zone NOT NULL,
	"contract_end_date" timestamp with time zone NOT NULL,
	"delivery_deadline" timestamp with time zone NOT NULL,
	"date_delivered" timestamp with time zone,
	"price" numeric(12, 4) NOT NULL,
	"cancelled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "organization_mfa_methods" (
	"organization_id" text NOT NULL,
	"method" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "organization_mfa_methods_organization_id_method_pk" PRIMARY KEY("organization_id","method")
);
--> statement-breakpoint
CREATE TABLE "scim_integrations" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"identity_provider" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"user_count" integer DEFAULT 0 NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_activity_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "scim_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"integration_id" text NOT NULL,
	"alias" text NOT NULL,
	"secret_hash" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "scim_tokens_secret_hash_unique" UNIQUE("secret_hash")
);
--> statement-breakpoint
CREATE TABLE "sso_providers" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"client_id" text NOT NULL,
	"issuer_uri" text NOT NULL,
	"email_domains" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "s3_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"user_id" text NOT NULL,
	"access_key_id" text NOT NULL,
	"secret_hash" text NOT NULL,
	"alias" text DEFAULT '' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expire_at" timestamp with time zone,
	CONSTRAINT "s3_keys_access_key_id_unique" UNIQUE("access_key_id")
);
--> statement-breakpoint
CREATE TABLE "capacities" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"location" text NOT NULL,
	"quantity" integer NOT NULL,
	"num_slices" integer NOT NULL,
	"quota_type" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "images" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"tags" text[] NOT NULL,
	"locations" text[] NOT NULL,
	"product_groups" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "registry_locations" (
	"id" text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE "registry_providers" (
	"id" text PRIMARY KEY NOT NULL,
	"description" text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "registry_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"user_id" text NOT NULL,
	"alias" text DEFAULT '' NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	CONSTRAINT "registry_tokens_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "role_bindings" ADD CONSTRAINT "role_bindings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "role_bindings" ADD CONSTRAINT "role_bindings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "role_bindings" ADD CONSTRAINT "role_bindings_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "roles" ADD CONSTRAINT "roles_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "disks" ADD CONSTRAINT "disks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "disks" ADD CONSTRAINT "disks_vm_id_vms_id_fk" FOREIGN KEY ("vm_id") REFERENCES "public"."vms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "network_interfaces" ADD CONSTRAINT "network_interfaces_vm_id_vms_id_fk" FOREIGN KEY ("vm_id") REFERENCES "public"."vms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vms" ADD CONSTRAINT "vms_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feature_flag_rules" ADD CONSTRAINT "feature_flag_rules_flag_key_feature_flags_key_fk" FOREIGN KEY ("flag_key") REFERENCES "public"."feature_flags"("key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_quotas" ADD CONSTRAINT "org_quotas_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gpu_tracking" ADD CONSTRAINT "gpu_tracking_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organization_mfa_methods" ADD CONSTRAINT "organization_mfa_methods_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_integrations" ADD CONSTRAINT "scim_integrations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_tokens" ADD CONSTRAINT "scim_tokens_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_tokens" ADD CONSTRAINT "scim_tokens_integration_id_scim_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."scim_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_providers" ADD CONSTRAINT "sso_providers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "s3_keys" ADD CONSTRAINT "s3_keys_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "s3_keys" ADD CONSTRAINT "s3_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registry_tokens" ADD CONSTRAINT "registry_tokens_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registry_tokens" ADD CONSTRAINT "registry_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_user_idx" ON "api_keys" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "api_keys_active_idx" ON "api_keys" USING btree ("id") WHERE revoked_at is null;--> statement-breakpoint
CREATE INDEX "memberships_user_idx" ON "memberships" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "role_bindings_uq" ON "role_bindings" USING btree ("user_id","role_id","scope_type","scope_object_id");--> statement-breakpoint
CREATE INDEX "role_bindings_org_idx" ON "role_bindings" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "role_bindings_scope_idx" ON "role_bindings" USING btree ("scope_type","scope_object_id");--> statement-breakpoint
CREATE UNIQUE INDEX "roles_org_name_uq" ON "roles" USING btree ("organization_id","role_name");--> statement-breakpoint
CREATE INDEX "disks_project_idx" ON "disks" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "disks_vm_idx" ON "disks" USING btree ("vm_id");--> statement-breakpoint
CREATE INDEX "nics_vm_idx" ON "network_interfaces" USING btree ("vm_id");--> statement-breakpoint
CREATE UNIQUE INDEX "projects_org_name_uq" ON "projects" USING btree ("organization_id","name");--> statement-breakpoint
CREATE INDEX "vms_project_idx" ON "vms" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "vms_org_idx" ON "vms" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "flag_rules_target_idx" ON "feature_flag_rules" USING btree ("target_type","target_id");--> statement-breakpoint
CREATE INDEX "audit_org_time_idx" ON "audit_log" USING btree ("organization_id","start_time" DESC NULLS LAST,"seq" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "usage_org_date_idx" ON "usage_records" USING btree ("organization_id","usage_date","seq");--> statement-breakpoint
CREATE INDEX "gpu_tracking_org_time_idx" ON "gpu_tracking" USING btree ("organization_id","event_time");--> statement-breakpoint
CREATE INDEX "reservations_org_idx" ON "reservations" USING btree ("organization_id","contract_start_date");--> statement-breakpoint
CREATE INDEX "scim_integrations_org_idx" ON "scim_integrations" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "scim_tokens_integration_idx" ON "scim_tokens" USING btree ("organization_id","integration_id");--> statement-breakpoint
CREATE INDEX "sso_providers_org_idx" ON "sso_providers" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "s3_keys_org_idx" ON "s3_keys" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "capacities_type_location_uq" ON "capacities" USING btree ("type","location");--> statement-breakpoint
CREATE INDEX "registry_tokens_org_idx" ON "registry_tokens" USING btree ("organization_id");