import { auditAs, mutate } from "../../audit";
import { requireOrgOwner, requirePermission, type Access } from "../../authz";
import { badRequest, notFound } from "../../errors";
import {
  deleteProjectCascade,
  findProject,
  insertProject,
  listProjectsIn,
  listVms,
  projectNameTaken,
  renameProject,
  resourceCounts,
  toProject,
  type ProjectRow,
} from "../../store/queries/projects";
import { jsonTextAnswer, toJsonText, type AppRouteHandler } from "../shared";
import type * as routes from "./projects.routes";

/** The project if the caller may see it; a missing and a hidden project are both 404. */
async function visibleProject(access: Access, db: Parameters<typeof findProject>[0], projectId: string) {
  const project = await findProject(db, projectId);
  const relation = project ? await access.projectRelation(project.organizationId, project.id) : null;
  if (!project || !relation) throw notFound(`project ${projectId} not found`);
  return { project, relation };
}

/**
 * A project of one of the caller's organizations, for changes (the permission is checked
 * after): a missing project and another organization's are the same 404, so ids cannot be probed.
 */
async function projectOfCallersOrgs(access: Access, db: Parameters<typeof findProject>[0], projectId: string) {
  const project = await findProject(db, projectId);
  if (!project || !(await access.relation(project.organizationId))) throw notFound(`project ${projectId} not found`);
  return project;
}

export const listProjects: AppRouteHandler<typeof routes.listProjects> = async (c) => {
  const { org_id: orgId, project_name: name, skip_loading_project_resources: skip } = c.req.valid("query");
  const { db, reads } = c.get("deps");
  const access = c.get("access");
  if (orgId !== undefined) await requireOrgOwner(access, orgId);
  // What one caller sees for one query is the same until the store changes: kept as the answer's text.
  // The caller is the account and the organization its key acts in (a key minted for an SSO session
  // sees that organization only), not the account alone.
  const key = JSON.stringify(["projects", access.caller.userId, access.caller.organizationId ?? null, orgId ?? null, name ?? null, skip === true]);
  const body = await reads.get(key, async () => {
    let visible: Array<{ row: ProjectRow; relation: string }>;
    if (orgId !== undefined) {
      visible = (await listProjectsIn(db, [orgId], name)).map((row) => ({ row, relation: "owner" }));
    } else {
      const orgs = await access.memberships();
      const rows = await listProjectsIn(db, [...orgs.keys()], name);
      const relations = await Promise.all(rows.map((row) => access.projectRelation(row.organizationId, row.id)));
      visible = rows.flatMap((row, i) => (relations[i] ? [{ row, relation: relations[i] }] : []));
    }
    const counts = skip ? undefined : await resourceCounts(db, visible.map((v) => v.row.id));
    return toJsonText({ items: visible.map(({ row, relation }) => toProject(row, relation, counts?.get(row.id))) });
  });
  return jsonTextAnswer(c, body);
};

export const createProject: AppRouteHandler<typeof routes.createProject> = async (c) => {
  const body = c.req.valid("json");
  const access = c.get("access");
  const audit = auditAs(c, {
    organizationId: body.organization_id,
    action: "Create",
    actionDetail: "Create Project",
    targetType: "Project",
    targetNames: [body.name],
  });
  await requirePermission(access, body.organization_id, "projects.create");
  const relation = (await access.relation(body.organization_id)) === "owner" ? "owner" : "member";
  const row = await mutate(c, audit, async (tx, meta) => {
    if (await projectNameTaken(tx, body.organization_id, body.name)) {
      throw badRequest("name", `a project named "${body.name}" already exists in this organization`);
    }
    const created = await insertProject(tx, {
      organizationId: body.organization_id,
      name: body.name,
      creatorId: c.get("caller").userId,
      creatorIsMember: relation === "member",
    });
    Object.assign(meta, { targetIds: [created.id], projectId: created.id, projectName: created.name });
    return created;
  });
  return c.json({ project: toProject(row, relation) }, 200);
};

export const updateProject: AppRouteHandler<typeof routes.updateProject> = async (c) => {
  const { project_id: projectId } = c.req.valid("query");
  const { name } = c.req.valid("json");
  const { db } = c.get("deps");
  const access = c.get("access");
  const audit = auditAs(c, { action: "Update", actionDetail: "Rename Project", targetType: "Project", targetIds: [projectId] });
  const project = await projectOfCallersOrgs(access, db, projectId);
  Object.assign(audit, { organizationId: project.organizationId, projectId, projectName: project.name, targetNames: [name] });
  await requirePermission(access, project.organizationId, "projects.update", projectId);
  const relation = (await access.projectRelation(project.organizationId, projectId)) ?? "member";
  const updated = await mutate(c, { ...audit, organizationId: project.organizationId }, async (tx) => {
    if (await projectNameTaken(tx, project.organizationId, name, projectId)) {
      throw badRequest("name", `a project named "${name}" already exists in this organization`);
    }
    const row = await renameProject(tx, projectId, name);
    if (!row) throw notFound(`project ${projectId} not found`);
    // Read in the change's transaction: a failure after the commit would answer 5xx for a change made.
    return { row, counts: await resourceCounts(tx, [projectId]) };
  });
  return c.json({ project: toProject(updated.row, relation, updated.counts.get(projectId)) }, 200);
};

export const getProject: AppRouteHandler<typeof routes.getProject> = async (c) => {
  const { project_id: projectId } = c.req.valid("param");
  const { db } = c.get("deps");
  const { project, relation } = await visibleProject(c.get("access"), db, projectId);
  const counts = await resourceCounts(db, [projectId]);
  return c.json(toProject(project, relation, counts.get(projectId)), 200);
};

export const deleteProject: AppRouteHandler<typeof routes.deleteProject> = async (c) => {
  const { project_id: projectId } = c.req.valid("param");
  const { db } = c.get("deps");
  const audit = auditAs(c, { action: "Delete", actionDetail: "Delete Project", targetType: "Project", targetIds: [projectId] });
  const project = await projectOfCallersOrgs(c.get("access"), db, projectId);
  Object.assign(audit, { organizationId: project.organizationId, projectId, projectName: project.name, targetNames: [project.name] });
  await requirePermission(c.get("access"), project.organizationId, "projects.delete", projectId);
  await mutate(c, { ...audit, organizationId: project.organizationId }, async (tx) => {
    if (!(await deleteProjectCascade(tx, projectId))) throw notFound(`project ${projectId} not found`);
  });
  return c.json({}, 200);
};

export const listProjectVms: AppRouteHandler<typeof routes.listProjectVms> = async (c) => {
  const { project_id: projectId } = c.req.valid("param");
  const { db } = c.get("deps");
  await visibleProject(c.get("access"), db, projectId);
  return c.json({ items: await listVms(db, projectId) }, 200);
};
