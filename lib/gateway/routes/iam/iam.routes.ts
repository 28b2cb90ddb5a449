import { createRoute } from "@hono/zod-openapi";
import { emptySchema } from "@/lib/contract/common";
import {
  applyRoleBindingRequestSchema,
  listRoleBindingsQuerySchema,
  listRoleBindingsResponseSchema,
  listRolesResponseSchema,
  userPathSchema,
} from "@/lib/contract/iam";
import { errors, json, jsonBody, operation } from "../shared";

export const listRoles = createRoute({
  ...operation("listRoles"),
  tags: ["Roles"],
  summary: "Lists role associated with the caller's organization.",
  responses: { 200: json(listRolesResponseSchema, "roles"), ...errors(400, 403, 500) },
});

export const listRoleBindings = createRoute({
  ...operation("listRoleBindings"),
  tags: ["RoleBindings"],
  summary: "Lists role bindings visible to the caller.",
  request: { query: listRoleBindingsQuerySchema },
  responses: { 200: json(listRoleBindingsResponseSchema, "role bindings"), ...errors(400, 403, 404, 500) },
});

export const applyRoleBindings = createRoute({
  ...operation("applyRoleBindings"),
  tags: ["RoleBindings"],
  summary: "Creates and deletes role bindings for a user in a single atomic operation.",
  description: "If any creation or deletion fails, no changes are applied.",
  request: { params: userPathSchema, body: jsonBody(applyRoleBindingRequestSchema) },
  responses: { 200: json(emptySchema, "empty response"), ...errors(400, 403, 404, 500) },
});
