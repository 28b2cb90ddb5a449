import { createLoader, parseAsString, parseAsStringLiteral } from "nuqs/server";
import { SCOPE_TYPES } from "@/lib/contract/constants";

/** The role-binding filters in the URL, named as the gateway's query parameters. */
export const bindingFilterParams = {
  user_id: parseAsString.withDefault(""),
  role_id: parseAsString.withDefault(""),
  scope_type: parseAsStringLiteral(SCOPE_TYPES),
  scope_object_id: parseAsString.withDefault(""),
};

export const loadBindingFilters = createLoader(bindingFilterParams);

export interface BindingFilterValues {
  user_id: string;
  role_id: string;
  scope_type: "org" | "project" | null;
  scope_object_id: string;
}

/** The gateway's query for the URL's filters: only those set. */
export function toBindingQuery(f: BindingFilterValues) {
  return {
    ...(f.user_id ? { user_id: f.user_id } : {}),
    ...(f.role_id ? { role_id: f.role_id } : {}),
    ...(f.scope_type ? { scope_type: f.scope_type } : {}),
    ...(f.scope_object_id ? { scope_object_id: f.scope_object_id } : {}),
  };
}
