import type { z } from "zod";
import type { listRoleBindingsResponseSchema, listRolesResponseSchema } from "@/lib/contract/iam";
import { gatewayQuery } from "./gateway-query";
import { iamKeys } from "./keys";
import { operationPath } from "@/lib/contract/operations";

export type ListRolesResponse = z.infer<typeof listRolesResponseSchema>;
export type ListRoleBindingsResponse = z.infer<typeof listRoleBindingsResponseSchema>;

export interface RoleBindingFilters {
  user_id?: string;
  role_id?: string;
  scope_type?: "org" | "project";
  scope_object_id?: string;
}

export const iamQueries = {
  /** GET /v1/iam/roles: roles of the caller's organization. */
  roles: () => gatewayQuery<ListRolesResponse, ReturnType<typeof iamKeys.roles>>(iamKeys.roles(), operationPath("listRoles")),
  /** GET /v1/iam/role-bindings */
  bindings: (filters: RoleBindingFilters = {}) =>
    gatewayQuery<ListRoleBindingsResponse, ReturnType<typeof iamKeys.bindings>>(iamKeys.bindings({ ...filters }), operationPath("listRoleBindings"), { ...filters }),
};
