"use client";

import { useQuery } from "@tanstack/react-query";
import { useOrg } from "@/components/common/use-org";
import { iamQueries } from "@/lib/query/iam";

export type ProjectPermission = "projects.update" | "projects.delete";

export interface ActionGuard {
  /** Why the action is unavailable; null when it may be tried. */
  reason: string | null;
  /** Said when only the gateway can tell (a project-scoped role). */
  caveat: string | null;
}

/**
 * Who may rename or delete which project. Organization-wide permissions come with
 * the entity; a project-scoped role (e.g. Project Admin) may grant them on one
 * project, which the console sees only as a binding on it (roles do not list
 * their permissions), so there the gateway decides and a 403 is explained.
 */
export function useProjectAccess(orgId: string, selfId: string) {
  const { access } = useOrg(orgId);
  const orgWide = access.can("projects.update") && access.can("projects.delete");
  const own = useQuery({ ...iamQueries.bindings({ user_id: selfId }), enabled: !orgWide && access.relation !== null });
  const boundProjects = new Set((own.data?.role_bindings ?? []).filter((b) => b.scope_type === "project").map((b) => b.scope_object_id));

  return {
    access,
    createReason: access.can("projects.create") ? null : "You need the projects.create permission in this organization to create projects.",
    guard(projectId: string, permission: ProjectPermission): ActionGuard {
      if (access.can(permission)) return { reason: null, caveat: null };
      if (boundProjects.has(projectId)) {
        return { reason: null, caveat: `Allowed only if your role on this project grants ${permission}.` };
      }
      return { reason: `You need the ${permission} permission in this organization or on this project.`, caveat: null };
    },
  };
}
