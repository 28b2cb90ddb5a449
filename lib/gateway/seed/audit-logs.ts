import { eq, sql } from "drizzle-orm";
import type { Database } from "../store/client";
import { auditLog, organizations, projects, vms } from "../store/schema";
import { DEMO_LOCATIONS } from "./compute";
import { noPause, type Pace } from "./pace";
import type { Rng } from "./random";

const DAY = 86_400_000;

export interface AuditActor {
  id: string;
  email: string;
  type: "user" | "system";
}

/** What the demo actors did: action, detail, target type, and whether it happens in a project and a location. */
const TEMPLATES = [
  { action: "Create", detail: "Create VM", target: "VM", project: true, located: true, weight: 8 },
  { action: "Delete", detail: "Delete VM", target: "VM", project: true, located: true, weight: 4 },
  { action: "Update", detail: "Start VM", target: "VM", project: true, located: true, weight: 6 },
  { action: "Update", detail: "Stop VM", target: "VM", project: true, located: true, weight: 6 },
  { action: "Update", detail: "Reset VM", target: "VM", project: true, located: true, weight: 2 },
  { action: "Create", detail: "Attach Disk", target: "Disk", project: true, located: true, weight: 4 },
  { action: "Create", detail: "Create Disk", target: "Disk", project: true, located: true, weight: 4 },
  { action: "Delete", detail: "Delete Disk", target: "Disk", project: true, located: true, weight: 2 },
  { action: "Create", detail: "Create Project", target: "Project", project: true, located: false, weight: 1 },
  { action: "Update", detail: "Rename Project", target: "Project", project: true, located: false, weight: 1 },
  { action: "Update", detail: "Apply Role Bindings", target: "RoleBinding", project: false, located: false, weight: 2 },
  { action: "Create", detail: "Create S3 Key", target: "S3Key", project: false, located: false, weight: 2 },
  { action: "Delete", detail: "Delete S3 Key", target: "S3Key", project: false, located: false, weight: 1 },
  { action: "Create", detail: "Create SSH Key", target: "SSHKey", project: false, located: false, weight: 2 },
  { action: "Update", detail: "Update Organization", target: "Organization", project: false, located: false, weight: 1 },
] as const;

const SYSTEM_TEMPLATES = [
  { action: "Update", detail: "Live Migrate VM", target: "VM" },
  { action: "Update", detail: "Apply Host Maintenance", target: "VM" },
  { action: "Delete", detail: "Reclaim Expired Snapshot", target: "Snapshot" },
] as const;

const FAILURES = {
  PERMISSION_DENIED: "the caller lacks the permission for this action",
  INVALID_ARGUMENT: "name: must contain only letters, digits, underscores and dashes",
  NOT_FOUND: "the requested resource was not found",
} as const;

const SURFACES = ["api", "console", "console", "cli", "terraform"] as const;

function weighted<T extends { weight: number }>(r: Rng, items: readonly T[]): T {
  const total = items.reduce((s, i) => s + i.weight, 0);
  let roll = r.next() * total;
  for (const item of items) {
    roll -= item.weight;
    if (roll < 0) return item;
  }
  return items[items.length - 1] as T;
}

function result(r: Rng, actor: AuditActor, owner: boolean): string {
  if (actor.type === "system") return "OK";
  const roll = r.next();
  if (!owner && roll < 0.18) return "PERMISSION_DENIED";
  if (roll > 0.95) return "INVALID_ARGUMENT";
  if (roll > 0.92) return "NOT_FOUND";
  return "OK";
}

/**
 * Audit-log entries spread over the last 90 days from the given actors, the
 * first of which is the owner; a system actor adds maintenance entries.
 */
export async function seedAuditLog(
  db: Database,
  r: Rng,
  input: { organizationId: string; actors: AuditActor[]; count: number; now: Date; pace?: Pace },
) {
  const { organizationId, actors, now, pace = noPause } = input;
  const [org] = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, organizationId));
  const orgProjects = await db.select({ id: projects.id, name: projects.name }).from(projects).where(eq(projects.organizationId, organizationId));
  const orgVms = await db.select({ id: vms.id, name: vms.name, location: vms.location }).from(vms).where(eq(vms.organizationId, organizationId));
  const system: AuditActor = { id: "system", email: "", type: "system" };
  const rows: Array<Record<string, string | string[] | null>> = [];
  for (let i = 0; i < input.count; i++) {
    const start = new Date(now.getTime() - Math.floor(r.next() * 90 * DAY));
    const isSystem = r.next() < 0.08;
    const actor = isSystem ? system : (actors[r.next() < 0.6 ? 0 : 1 + Math.floor(r.next() * (actors.length - 1))] ?? system);
    const template = isSystem ? { ...r.pick(SYSTEM_TEMPLATES), project: true, located: true } : weighted(r, TEMPLATES);
    const project = template.project && orgProjects.length ? r.pick(orgProjects) : null;
    const vm = orgVms.length ? r.pick(orgVms) : null;
    const location = template.located ? (vm?.location ?? r.pick(DEMO_LOCATIONS).id) : null;
    let targetId = r.uuid();
    let targetName = "";
    if (template.target === "VM" && vm) [targetId, targetName] = [vm.id, vm.name];
    else if (template.target === "Disk") targetName = `${vm?.name ?? "disk"}-data-${r.int(1, 4)}`;
    else if (template.target === "Project" && project) [targetId, targetName] = [project.id, project.name];
    else if (template.target === "S3Key") targetName = `key-${r.int(100, 999)}`;
    else if (template.target === "SSHKey") targetName = r.pick(["laptop", "ci-runner", "bastion", "workstation"]);
    else if (template.target === "Organization") [targetId, targetName] = [organizationId, org?.name ?? ""];
    else if (template.target === "Snapshot") targetName = `snap-${r.int(1000, 9999)}`;
    const outcome = result(r, actor, actor === actors[0]);
    rows.push({
      id: r.uuid(),
      organization_id: organizationId,
      organization_name: org?.name ?? "",
      project_id: project?.id ?? null,
      project_name: project?.name ?? null,
      action: template.action,
      action_detail: template.detail,
      actor_id: actor.id,
      actor_email: actor.email,
      actor_type: actor.type,
      client_ip: isSystem ? "" : `198.51.100.${r.int(2, 254)}`,
      start_time: start.toISOString(),
      end_time: new Date(start.getTime() + r.int(40, 2500)).toISOString(),
      result: outcome,
      error_message: outcome === "OK" ? "" : FAILURES[outcome as keyof typeof FAILURES],
      surface: isSystem ? "api" : r.pick(SURFACES),
      locations: location ? [location] : [],
      target_ids: [targetId],
      target_names: targetName ? [targetName] : [],
      target_type: template.target,
    });
  }
  // One JSON parameter per statement (far quicker on PGlite than thousands of bound values), in
  // statements short enough not to hold a PGlite server's one thread for long.
  for (let i = 0; i < rows.length; i += AUDIT_BATCH_ROWS) {
    await insertAuditRows(db, rows.slice(i, i + AUDIT_BATCH_ROWS));
    await pace();
  }
}

const AUDIT_BATCH_ROWS = 300;

async function insertAuditRows(db: Database, rows: Array<Record<string, string | string[] | null>>) {
  await db.execute(sql`
    insert into ${auditLog} (id, organization_id, organization_name, project_id, project_name, action, action_detail, actor_id,
      actor_email, actor_type, client_ip, start_time, end_time, result, error_message, surface, locations, target_ids,
      target_names, target_type)
    select x.* from json_to_recordset(${JSON.stringify(rows)}::json) as x(id text, organization_id text, organization_name text,
      project_id text, project_name text, action text, action_detail text, actor_id text, actor_email text, actor_type text,
      client_ip text, start_time timestamptz, end_time timestamptz, result text, error_message text, surface text,
      locations text[], target_ids text[], target_names text[], target_type text)`);
}
