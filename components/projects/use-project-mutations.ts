"use client";

import type { z } from "zod";
import type { projectsPutPostResponseSchema } from "@/lib/contract/projects";
import { iamKeys, peopleKeys, projectKeys } from "@/lib/query/keys";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { operationPath } from "@/lib/contract/operations";

type ProjectResponse = z.infer<typeof projectsPutPostResponseSchema>;

export function useCreateProject() {
  return useGatewayMutation<{ organization_id: string; name: string }, ProjectResponse>({
    request: (body) => ({ method: "POST", path: operationPath("createProject"), body }),
    // A member who creates a project gets a binding on it (Project Admin): their bindings, and what they
    // may do on it (rename, delete), are new.
    invalidate: ({ organization_id }) => [projectKeys.all, iamKeys.all, peopleKeys.permissionsIn(organization_id)],
    success: (r) => `Project ${r.project.name} created`,
  });
}

export function useRenameProject() {
  return useGatewayMutation<{ projectId: string; name: string }, ProjectResponse>({
    request: ({ projectId, name }) => ({ method: "PUT", path: operationPath("updateProject"), query: { project_id: projectId }, body: { name } }),
    invalidate: () => [projectKeys.all],
    success: (r) => `Project renamed to ${r.project.name}`,
  });
}

export function useDeleteProject(onDeleted?: () => void) {
  return useGatewayMutation<{ projectId: string; name: string }>({
    request: ({ projectId }) => ({ method: "DELETE", path: operationPath("deleteProject", { project_id: projectId }) }),
    // Lists only: the deleted project's own queries would answer 404 while its page is left.
    invalidate: () => [projectKeys.lists(), iamKeys.all],
    success: (_r, { name }) => `Project ${name} deleted`,
    onSuccess: () => onDeleted?.(),
  });
}
