import type { ListProjectsResponse } from "@/lib/query/projects";

/**
 * A project's name: the one the caller can see, else the one the spend data carries (the name its CSV
 * export writes, so the page and the file agree), else a short form of its id.
 */
export function projectLabeler(projects: ListProjectsResponse | undefined, orgId: string, spendNames: Record<string, string> = {}): (id: string) => string {
  const names = new Map((projects?.items ?? []).filter((p) => p.organization_id === orgId).map((p) => [p.id, p.name]));
  return (id) => names.get(id) ?? spendNames[id] ?? `Project ${id.slice(0, 8)}`;
}
