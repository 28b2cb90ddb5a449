import { forbidden } from "../../errors";
import { evaluateFlags } from "../../store/queries/flags";
import { firstOrganization } from "../../store/queries/first-organization";
import { findProject } from "../../store/queries/projects";
import type { AppRouteHandler } from "../shared";
import type * as routes from "./flags.routes";

export const getFeatureFlags: AppRouteHandler<typeof routes.getFeatureFlags> = async (c) => {
  const { project_id: projectId } = c.req.valid("query");
  const { db } = c.get("deps");
  const caller = c.get("caller");
  if (projectId === undefined) {
    const organizationId = await firstOrganization(db, caller);
    return c.json({ feature_flags: await evaluateFlags(db, { userId: caller.userId, organizationId }) }, 200);
  }
  // An unknown project and a project the caller may not see are the same 403, so ids cannot be probed.
  const project = await findProject(db, projectId);
  const relation = project ? await c.get("access").projectRelation(project.organizationId, project.id) : null;
  if (!project || !relation) throw forbidden("the caller is not a member of this project");
  const flags = await evaluateFlags(db, { userId: caller.userId, organizationId: project.organizationId, projectId: project.id });
  return c.json({ feature_flags: flags }, 200);
};
