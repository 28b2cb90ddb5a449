-- Every committed change to these tables tells other processes on the same PostgreSQL
-- (replicas of the gateway) to drop what they cached from them: one notice per
-- transaction and table, delivered at commit. The audit log and usage records, written
-- in volume and never cached, do not notify.
CREATE OR REPLACE FUNCTION "stratus_notify_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('stratus_changes', TG_TABLE_NAME);
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "users_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "users" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "organizations_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "organizations" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "memberships_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "memberships" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "roles_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "roles" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "role_bindings_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "role_bindings" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "api_keys_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "api_keys" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "projects_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "projects" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "vms_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "vms" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "disks_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "disks" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "network_interfaces_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "network_interfaces" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "feature_flags_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "feature_flags" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "feature_flag_rules_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "feature_flag_rules" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "org_quotas_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "org_quotas" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "reservations_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "reservations" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "gpu_tracking_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "gpu_tracking" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "scim_integrations_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "scim_integrations" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "scim_tokens_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "scim_tokens" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "sso_providers_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "sso_providers" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "organization_mfa_methods_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "organization_mfa_methods" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "s3_keys_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "s3_keys" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "capacities_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "capacities" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "images_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "images" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "registry_locations_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "registry_locations" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "registry_providers_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "registry_providers" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "registry_tokens_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "registry_tokens" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();--> statement-breakpoint
CREATE TRIGGER "locations_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "locations" FOR EACH STATEMENT EXECUTE FUNCTION "stratus_notify_change"();
