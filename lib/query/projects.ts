import type { z } from "zod";
import type { listProjectsResponseSchema, listVmsResponseSchema, projectSchema } from "@/lib/contract/projects";
import { gatewayQuery } from "./gateway-query";
import { projectKeys } from "./keys";
import { operationPath } from "@/lib/contract/operations";

export type ListProjectsResponse = z.infer<typeof listProjectsResponseSchema>;
export type Project = z.infer<typeof projectSchema>;
export type ListVmsResponse = z.infer<typeof listVmsResponseSchema>;

export interface ProjectListFilters {
  org_id?: string;
  project_name?: string;
  skip_loading_project_resources?: "true" | "false";
}

export const projectQueries = {
  /** GET /v1/organizations/projects */
  list: (filters: ProjectListFilters = {}) =>
    gatewayQuery<ListProjectsResponse, ReturnType<typeof projectKeys.list>>(projectKeys.list({ ...filters }), operationPath("listProjects"), { ...filters }),
  /** GET /v1/organizations/projects/{project_id} */
  detail: (projectId: string) =>
    gatewayQuery<Project, ReturnType<typeof projectKeys.detail>>(projectKeys.detail(projectId), operationPath("getProject", { project_id: projectId })),
  /** GET /v1/organizations/projects/{project_id}/vms */
  vms: (projectId: string) =>
    gatewayQuery<ListVmsResponse, ReturnType<typeof projectKeys.vms>>(projectKeys.vms(projectId), operationPath("listProjectVMs", { project_id: projectId })),
};
