import { z } from "zod";
import { SCOPE_TYPES } from "./constants";
import { bodyArray, idSchema } from "./common";

export const scopeTypeSchema = z.enum(SCOPE_TYPES, { message: "must be org or project" });

export const roleSchema = z
  .object({
    id: z.string(),
    role_name: z.string(),
    allowed_scopes: z.array(z.string()),
    org_id: z.string(),
    description: z.string(),
  })
  .meta({ id: "Role" });

export const listRolesResponseSchema = z.object({ roles: z.array(roleSchema) }).meta({ id: "ListRolesResponse" });

export const roleBindingSchema = z
  .object({
    id: z.string(),
    customer_id: z.string(),
    role_id: z.string(),
    role_name: z.string(),
    scope_type: z.string(),
    scope_object_id: z.string(),
    /** Set when the binding is granted through a SCIM group mapping: the group's id (it cannot be deleted directly). */
    via_group_id: z.string().optional(),
  })
  .meta({ id: "RoleBinding" });

export const listRoleBindingsQuerySchema = z.object({
  user_id: idSchema.optional(),
  role_id: idSchema.optional(),
  scope_type: scopeTypeSchema.optional(),
  scope_object_id: idSchema.optional(),
});

export const listRoleBindingsResponseSchema = z
  .object({ role_bindings: z.array(roleBindingSchema) })
  .meta({ id: "ListRoleBindingsResponse" });

export const roleBindingInputSchema = z
  .object({
    customer_id: idSchema,
    role_id: idSchema,
    scope_type: scopeTypeSchema,
    scope_object_id: idSchema,
  })
  .meta({ id: "RoleBindingInput" });

export const applyRoleBindingRequestSchema = z
  .object({
    bindings_to_create: bodyArray(z.array(roleBindingInputSchema).max(200, "at most 200 changes at once")),
    bindings_to_delete: bodyArray(z.array(idSchema).max(200, "at most 200 changes at once")),
  })
  .meta({ id: "ApplyRoleBindingRequest" });

export const userPathSchema = z.object({ user_id: idSchema });

export type RoleBinding = z.infer<typeof roleBindingSchema>;
export type RoleBindingInput = z.infer<typeof roleBindingInputSchema>;
export type ApplyRoleBindingRequest = z.infer<typeof applyRoleBindingRequestSchema>;
export type Role = z.infer<typeof roleSchema>;
