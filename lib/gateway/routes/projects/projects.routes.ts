import { createRoute } from "@hono/zod-openapi";
import { emptySchema } from "@/lib/contract/common";
import {
  listProjectsQuerySchema,
  listProjectsResponseSchema,
  listVmsResponseSchema,
  projectPathSchema,
  projectSchema,
  projectsPostRequestSchema,
  projectsPutPostResponseSchema,
  projectsPutQuerySchema,
  projectsPutRequestSchema,
} from "@/lib/contract/projects";
import { errors, json, jsonBody } from "../shared";

const tags = ["Projects"];

export const listProjects = createRoute({
  method: "get",
  path: "/organizations/projects",
  operationId: "listProjects",
  tags,
  summary: "Lists all projects the logged-in user belongs to or owns and returns their details.",
  description: "If querying for projects within an organization, the logged-in user must be the owner of the organization.",
  request: { query: listProjectsQuerySchema },
  responses: { 200: json(listProjectsResponseSchema, "projects"), ...errors(401, 500) },
});

export const createProject = createRoute({
  method: "post",
  path: "/organizations/projects",
  operationId: "createProject",
  tags,
  summary: "Creates a project and returns the created project.",
  request: { body: jsonBody(projectsPostRequestSchema) },
  responses: { 200: json(projectsPutPostResponseSchema, "the created project"), ...errors(400, 401, 403, 500) },
});

export const updateProject = createRoute({
  method: "put",
  path: "/organizations/projects",
  operationId: "updateProject",
  tags,
  summary: "Updates a project and returns the updated project. Only the name can be changed.",
  request: { query: projectsPutQuerySchema, body: jsonBody(projectsPutRequestSchema) },
  responses: { 200: json(projectsPutPostResponseSchema, "the updated project"), ...errors(400, 401, 403, 404, 500) },
});

export const getProject = createRoute({
  method: "get",
  path: "/organizations/projects/{project_id}",
  operationId: "getProject",
  tags,
  summary: "Returns details for a single project.",
  request: { params: projectPathSchema },
  responses: { 200: json(projectSchema, "the project"), ...errors(401, 404, 500) },
});

export const deleteProject = createRoute({
  method: "delete",
  path: "/organizations/projects/{project_id}",
  operationId: "deleteProject",
  tags,
  summary: "Deletes a project. Delete operations cascade to VMs created under that project.",
  request: { params: projectPathSchema },
  responses: { 200: json(emptySchema, "empty response"), ...errors(401, 403, 404, 500) },
});

/** Not in the upstream document: the project's VMs in the command-line client's shape. */
export const listProjectVms = createRoute({
  method: "get",
  path: "/organizations/projects/{project_id}/vms",
  operationId: "listProjectVMs",
  tags,
  summary: "Lists the VMs of a project with their disks and network interfaces (Stratus extension).",
  request: { params: projectPathSchema },
  responses: { 200: json(listVmsResponseSchema, "the project's VMs"), ...errors(401, 404, 500) },
});
