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
import { errors, json, jsonBody, operation } from "../shared";

const tags = ["Projects"];

export const listProjects = createRoute({
  ...operation("listProjects"),
  tags,
  summary: "Lists all projects the logged-in user belongs to or owns and returns their details.",
  description:
    "If querying for projects within an organization, the logged-in user must be the owner of the organization (403 otherwise). " +
    "A query value that fails validation (an org_id or project_name too long, a skip_loading_project_resources other than true or false) is a 400 naming it.",
  request: { query: listProjectsQuerySchema },
  responses: { 200: json(listProjectsResponseSchema, "projects"), ...errors(400, 401, 403, 500) },
});

export const createProject = createRoute({
  ...operation("createProject"),
  tags,
  summary: "Creates a project and returns the created project.",
  request: { body: jsonBody(projectsPostRequestSchema) },
  responses: { 200: json(projectsPutPostResponseSchema, "the created project"), ...errors(400, 401, 403, 500) },
});

export const updateProject = createRoute({
  ...operation("updateProject"),
  tags,
  summary: "Updates a project and returns the updated project. Only the name can be changed.",
  request: { query: projectsPutQuerySchema, body: jsonBody(projectsPutRequestSchema) },
  responses: { 200: json(projectsPutPostResponseSchema, "the updated project"), ...errors(400, 401, 403, 404, 500) },
});

export const getProject = createRoute({
  ...operation("getProject"),
  tags,
  summary: "Returns details for a single project.",
  request: { params: projectPathSchema },
  responses: { 200: json(projectSchema, "the project"), ...errors(400, 401, 404, 500) },
});

export const deleteProject = createRoute({
  ...operation("deleteProject"),
  tags,
  summary: "Deletes a project. Delete operations cascade to VMs created under that project.",
  request: { params: projectPathSchema },
  responses: { 200: json(emptySchema, "empty response"), ...errors(400, 401, 403, 404, 500) },
});

/** Not in the upstream document: the project's VMs in the command-line client's shape. */
export const listProjectVms = createRoute({
  ...operation("listProjectVMs"),
  tags,
  summary: "Lists the VMs of a project with their disks and network interfaces (Stratus extension).",
  request: { params: projectPathSchema },
  responses: { 200: json(listVmsResponseSchema, "the project's VMs"), ...errors(400, 401, 404, 500) },
});
