"use client";

import { useQuery } from "@tanstack/react-query";
import { usePeopleDirectory } from "@/components/common/person-name";
import { useOrg } from "@/components/common/use-org";
import type { Role } from "@/lib/contract/iam";
import { iamQueries } from "@/lib/query/iam";
import { projectQueries, type Project } from "@/lib/query/projects";
import { personLock } from "./staged";

/**
 * What the IAM page resolves names with: this organization's roles and the projects
 * the caller can see (listing by org_id is for owners only, so everyone lists all
 * and keeps this organization's).
 */
export function useIamContext(orgId: string) {
  const org = useOrg(orgId);
  const roles = useQuery(iamQueries.roles());
  const projects = useQuery(projectQueries.list());
  const orgRoles: Role[] = (roles.data?.roles ?? []).filter((r) => r.org_id === orgId);
  const orgProjects: Project[] = (projects.data?.items ?? []).filter((p) => p.organization_id === orgId);
  const roleIds = new Set(orgRoles.map((r) => r.id));
  // Looked up by id for every row of a table (three times a row): one Map, not a search of the list each time.
  const projectNames = new Map(orgProjects.map((p) => [p.id, p.name]));
  const orgName = org.entity?.name ?? "this organization";
  const { byId: people } = usePeopleDirectory(orgId);

  return {
    ...org,
    orgName,
    roles,
    projects,
    orgRoles,
    orgProjects,
    /** Whether a binding belongs to this organization (the list spans all of the caller's). */
    inOrg: (binding: { role_id: string }) => roleIds.has(binding.role_id),
    /**
     * Why the caller may not change this person's bindings although they hold iam.write (only an owner changes an
     * owner's), or null. `relation` for a person the directory leaves out (looked up with usePerson).
     */
    personLock: (userId: string, relation = people.get(userId)?.relation): string | null => personLock(relation, org.access.isOwner),
    /** "Acme AI Labs", "llm-training", or null when the caller cannot see the project. */
    scopeName: (scopeType: string, scopeObjectId: string): string | null =>
      scopeType === "org"
        ? scopeObjectId === orgId
          ? orgName
          : null
        : (projectNames.get(scopeObjectId) ?? null),
  };
}

export type IamContext = ReturnType<typeof useIamContext>;
