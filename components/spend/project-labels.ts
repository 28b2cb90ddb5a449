import type { ListProjectsResponse } from "@/lib/query/projects";

/** A project's name where the caller can see it, else a short form of its id. */
export function projectLabeler(projects: ListProjectsResponse | undefined, orgId: string): (id: string) => string {
  const names = new Map((projects?.items ?? []).filter((p) => p.organization_id === orgId).map((p) => [p.id, p.name]));
  return (id) => names.get(id) ?? `Project ${id.slice(0, 8)}`;
}
