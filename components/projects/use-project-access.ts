"use client";

import { useQuery } from "@tanstack/react-query";
import { useOrg } from "@/components/common/use-org";
import { peopleQueries } from "@/lib/query/people";

export type ProjectPermission = "projects.update" | "projects.delete";

export interface ActionGuard {
  /** Why the action is unavailable; null when it may be tried. */
  reason: string | null;
  /** Kept for callers that show a note; the decision is now made from the gateway's answer. */
  caveat: string | null;
}

const WHAT: Record<ProjectPermission, string> = { "projects.update": "rename", "projects.delete": "delete" };

/**
 * Who may rename or delete which project, from the gateway's answer of the caller's effective
 * permissions: organization-wide, and on each project they hold a role on (a Project Admin there
 * may rename and delete it; a Project Member may not).
 */
export function useProjectAccess(orgId: string) {
  const { access } = useOrg(orgId);
  const effective = useQuery({ ...peopleQueries.permissions(orgId), enabled: access.relation !== null });
  const held = (projectId: string, permission: ProjectPermission) =>
    access.can(permission) || (effective.data?.projects[projectId] ?? []).includes(permission);

  return {
    access,
    createReason: access.can("projects.create") ? null : "You need the projects.create permission in this organization to create projects.",
    guard(projectId: string, permission: ProjectPermission): ActionGuard {
      if (held(projectId, permission)) return { reason: null, caveat: null };
      if (effective.isPending) return { reason: "Checking your permissions on this project…", caveat: null };
      const role = effective.data?.projects[projectId] ? "Your role on this project does not" : "You hold no role on this project that does";
      return {
        reason: `You can't ${WHAT[permission]} this project: it needs the ${permission} permission. ${role} grant it. Ask an owner of the organization.`,
        caveat: null,
      };
    },
  };
}
