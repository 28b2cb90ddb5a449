import { randomUUID } from "node:crypto";
import { and, asc, countDistinct, eq, inArray, sql } from "drizzle-orm";
import type { Project, Vm } from "@/lib/contract/projects";
import type { Database } from "../client";
import { disks, networkInterfaces, projects, roleBindings, roles, scimGroupMappings, vms } from "../schema";

export type ProjectRow = typeof projects.$inferSelect;
export type ResourceCounts = Project["resources"];

const ZERO: ResourceCounts = {
  instances: { count: 0 },
  disks: { count: 0 },
  snapshots: { count: 0 },
  images: { count: 0 },
  vpc_networks: { count: 0 },
};

export function toProject(row: ProjectRow, relation: string, resources: ResourceCounts = ZERO): Project {
  return { id: row.id, organization_id: row.organizationId, name: row.name, relation, resources };
}

/** Live resource counts of the given projects, three grouped queries whatever their number. */
export async function resourceCounts(db: Database, projectIds: string[]): Promise<Map<string, ResourceCounts>> {
  const result = new Map<string, ResourceCounts>(projectIds.map((id) => [id, structuredClone(ZERO)]));
  if (projectIds.length === 0) return result;
  const [vmCounts, diskCounts, networkCounts] = await Promise.all([
    db
      .select({ projectId: vms.projectId, n: sql<number>`count(*)::int` })
      .from(vms)
      .where(inArray(vms.projectId, projectIds))
      .groupBy(vms.projectId),
    db
      .select({ projectId: disks.projectId, n: sql<number>`count(*)::int` })
      .from(disks)
      .where(inArray(disks.projectId, projectIds))
      .groupBy(disks.projectId),
    db
      .select({ projectId: vms.projectId, n: countDistinct(networkInterfaces.network) })
      .from(networkInterfaces)
      .innerJoin(vms, eq(vms.id, networkInterfaces.vmId))
      .where(inArray(vms.projectId, projectIds))
      .groupBy(vms.projectId),
  ]);
  for (const r of vmCounts) result.get(r.projectId)!.instances.count = Number(r.n);
  for (const r of diskCounts) result.get(r.projectId)!.disks.count = Number(r.n);
  for (const r of networkCounts) result.get(r.projectId)!.vpc_networks.count = Number(r.n);
  return result;
}

export async function findProject(db: Database, projectId: string): Promise<ProjectRow | undefined> {
  const [row] = await db.select().from(projects).where(eq(projects.id, projectId));
  return row;
}

export async function listProjectsIn(db: Database, orgIds: string[], name?: string): Promise<ProjectRow[]> {
  if (orgIds.length === 0) return [];
  return db
    .select()
    .from(projects)
    .where(and(inArray(projects.organizationId, orgIds), name !== undefined ? eq(projects.name, name) : undefined))
    .orderBy(asc(projects.name), asc(projects.id));
}

export async function projectNameTaken(db: Database, orgId: string, name: string, exceptId?: string): Promise<boolean> {
  const rows = await db
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.organizationId, orgId), eq(projects.name, name)));
  return rows.some((r) => r.id !== exceptId);
}

/** The VMs of a project in the spec's VM shape, with their disks and network interfaces. */
export async function listVms(db: Database, projectId: string): Promise<Vm[]> {
  const vmRows = await db.select().from(vms).where(eq(vms.projectId, projectId)).orderBy(asc(vms.name));
  if (vmRows.length === 0) return [];
  const ids = vmRows.map((v) => v.id);
  const [diskRows, nicRows] = await Promise.all([
    db.select().from(disks).where(inArray(disks.vmId, ids)).orderBy(asc(disks.position)),
    db.select().from(networkInterfaces).where(inArray(networkInterfaces.vmId, ids)).orderBy(asc(networkInterfaces.position)),
  ]);
  return vmRows.map((vm) => ({
    id: vm.id,
    name: vm.name,
    type: vm.type,
    location: vm.location,
    project_id: vm.projectId,
    state: vm.state,
    created_at: vm.createdAt.toISOString(),
    updated_at: vm.updatedAt.toISOString(),
    commitment_end: vm.commitmentEnd,
    commitment_period: vm.commitmentPeriod,
    ssh_destination: vm.sshDestination,
    host_channel_adapters: vm.hostChannelAdapters,
    disks: diskRows
      .filter((d) => d.vmId === vm.id)
      .map((d) => ({
        id: d.id,
        name: d.name,
        type: d.type,
        size: d.size,
        block_size: d.blockSize,
        attachment_type: d.attachmentType,
        mode: d.mode,
        location: d.location,
        serial_number: d.serialNumber,
        created_at: d.createdAt.toISOString(),
        updated_at: d.updatedAt.toISOString(),
      })),
    network_interfaces: nicRows
      .filter((n) => n.vmId === vm.id)
      .map((n) => ({
        id: n.id,
        name: n.name,
        interface_type: n.interfaceType,
        mac_address: n.macAddress,
        network: n.network,
        subnet: n.subnet,
        ips: n.ips,
      })),
  }));
}

/**
 * Creates a project; a creator who is a member (not the owner) gets the organization's Project
 * Admin role on it, as they administer what they create.
 */
export async function insertProject(tx: Database, p: { organizationId: string; name: string; creatorId: string; creatorIsMember: boolean }): Promise<ProjectRow> {
  const [created] = await tx.insert(projects).values({ id: randomUUID(), organizationId: p.organizationId, name: p.name }).returning();
  if (!created) throw new Error("insert returned nothing");
  if (p.creatorIsMember) {
    const [admin] = await tx
      .select({ id: roles.id })
      .from(roles)
      .where(and(eq(roles.organizationId, p.organizationId), eq(roles.roleName, "Project Admin")));
    if (admin) {
      await tx.insert(roleBindings).values({
        id: randomUUID(),
        organizationId: p.organizationId,
        userId: p.creatorId,
        roleId: admin.id,
        scopeType: "project",
        scopeObjectId: created.id,
      });
    }
  }
  return created;
}

/** The renamed project, or undefined when it is gone. */
export async function renameProject(tx: Database, projectId: string, name: string): Promise<ProjectRow | undefined> {
  const [row] = await tx.update(projects).set({ name, updatedAt: new Date() }).where(eq(projects.id, projectId)).returning();
  return row;
}

/**
 * Deletes a project with its VMs, their disks and network interfaces (foreign-key cascades), the
 * role bindings scoped to it and the SCIM group mappings onto it (left, a mapping would go on
 * granting its group's new members a role on a project that is gone); false when it was already
 * gone. What writes either holds the project first (holdProjects), so none is written after this.
 */
export async function deleteProjectCascade(tx: Database, projectId: string): Promise<boolean> {
  const gone = await tx.delete(projects).where(eq(projects.id, projectId)).returning({ id: projects.id });
  if (gone.length === 0) return false;
  // The mappings before the bindings, as a change of the mappings takes them (replaceGroupMappings, then the sync's
  // bindings): the other way round the two could each wait for what the other holds.
  await tx.delete(scimGroupMappings).where(and(eq(scimGroupMappings.scopeType, "project"), eq(scimGroupMappings.scopeObjectId, projectId)));
  await tx.delete(roleBindings).where(and(eq(roleBindings.scopeType, "project"), eq(roleBindings.scopeObjectId, projectId)));
  return true;
}
