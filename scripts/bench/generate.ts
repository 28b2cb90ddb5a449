/**
 * Benchmark data, generated inside the store with generate_series (one INSERT …
 * SELECT per chunk, nothing crosses into JavaScript row by row). Values are
 * deterministic functions of the row number (hashint8), so two runs hold the same
 * data, and their cardinalities resemble a busy organization's: a few dozen actors,
 * hundreds of disks, thousands of snapshots, 90 days of audit history (or as many as asked), a year of
 * daily usage per metered resource.
 */
import { createHash } from "node:crypto";
import { asc, eq, sql } from "drizzle-orm";
import type { Database } from "@/lib/gateway/store/client";
import { organizations, projects, vms } from "@/lib/gateway/store/schema";

const CHUNK = 100_000;

/** Row numbers 0…total-1 in chunks, highest first: row 0 is the newest, so sequence numbers grow with time. */
async function inChunks(total: number, insert: (from: number, to: number) => Promise<void>, progress?: (done: number) => void) {
  let done = 0;
  for (let to = total - 1; to >= 0; to -= CHUNK) {
    const from = Math.max(0, to - CHUNK + 1);
    await insert(from, to);
    done += to - from + 1;
    progress?.(done);
  }
}

/** A number written into the statement (a bound parameter would be typed after its neighbour). */
const n = (value: number) => sql.raw(String(value));

/** Audit-log templates of user actions, repeated by weight so `h % length` picks one with that weight. */
const USER_TEMPLATES: Array<[action: string, detail: string, target: string, inProject: boolean, located: boolean, weight: number]> = [
  ["Create", "Create VM", "VM", true, true, 8],
  ["Delete", "Delete VM", "VM", true, true, 4],
  ["Update", "Start VM", "VM", true, true, 6],
  ["Update", "Stop VM", "VM", true, true, 6],
  ["Update", "Reset VM", "VM", true, true, 2],
  ["Create", "Attach Disk", "Disk", true, true, 4],
  ["Create", "Create Disk", "Disk", true, true, 4],
  ["Delete", "Delete Disk", "Disk", true, true, 2],
  ["Create", "Create Project", "Project", true, false, 1],
  ["Update", "Rename Project", "Project", true, false, 1],
  ["Update", "Apply Role Bindings", "RoleBinding", false, false, 2],
  ["Create", "Create S3 Key", "S3Key", false, false, 2],
  ["Delete", "Delete S3 Key", "S3Key", false, false, 1],
  ["Create", "Create SSH Key", "SSHKey", false, false, 2],
  ["Update", "Update Organization", "Organization", false, false, 1],
];
const SYSTEM_TEMPLATES: Array<[string, string, string, boolean, boolean, number]> = [
  ["Update", "Live Migrate VM", "VM", true, true, 1],
  ["Update", "Apply Host Maintenance", "VM", true, true, 1],
  ["Delete", "Reclaim Expired Snapshot", "Snapshot", true, true, 1],
];
const SURFACES = ["api", "console", "console", "cli", "terraform"];
const LOCATIONS = ["us-east1-a", "us-east1-b", "us-northcentral1-a", "us-west1-a", "eu-north1-a", "eu-west2-a"];
export const AUDIT_ACTORS = 48;
export const AUDIT_DISKS = 200;
export const AUDIT_S3_KEYS = 50;
export const AUDIT_SNAPSHOTS = 2000;

function expand(templates: typeof USER_TEMPLATES) {
  const rows = templates.flatMap((t) => Array.from({ length: t[5] }, () => t));
  return {
    actions: rows.map((t) => t[0]),
    details: rows.map((t) => t[1]),
    targets: rows.map((t) => t[2]),
    inProject: rows.map((t) => t[3]),
    located: rows.map((t) => t[4]),
  };
}

/** A text[] literal as one bound parameter. */
const textArray = (values: readonly string[]) => sql`${`{${values.map((v) => `"${v.replace(/["\\]/g, "\\$&")}"`).join(",")}}`}::text[]`;
const boolArray = (values: readonly boolean[]) => sql`${`{${values.join(",")}}`}::boolean[]`;

export interface AuditPeople {
  owner: { id: string; email: string };
  member: { id: string; email: string };
}

/**
 * `count` audit-log entries of the organization over the `spanDays` (90) days before `now`,
 * evenly spread (newest first by row number). 8% come from the system actor; of
 * the users' entries 60% are the owner's, the rest spread over the member and
 * AUDIT_ACTORS other people. Targets are the organization's projects and VMs and
 * pools of disks, keys and snapshots.
 */
export async function generateAuditLog(
  db: Database,
  input: { organizationId: string; people: AuditPeople; count: number; now: Date; spanDays?: number },
  progress?: (done: number) => void,
) {
  const { organizationId, people, count, now, spanDays = 90 } = input;
  const [org] = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, organizationId));
  const orgProjects = await db.select({ id: projects.id, name: projects.name }).from(projects).where(eq(projects.organizationId, organizationId)).orderBy(asc(projects.name));
  let orgVms = await db.select({ id: vms.id, name: vms.name, location: vms.location }).from(vms).where(eq(vms.organizationId, organizationId)).orderBy(asc(vms.name));
  if (!org || orgProjects.length === 0) throw new Error("the organization needs its projects");
  // An organization without VMs of its own gets a pool of VM targets that exist only in its log.
  if (orgVms.length === 0) {
    orgVms = Array.from({ length: 24 }, (_, i) => ({
      id: createHash("md5").update(`bench-vm-${organizationId}-${i}`).digest("hex").replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, "$1-$2-$3-$4-$5"),
      name: `vm-${String(i).padStart(2, "0")}`,
      location: LOCATIONS[i % LOCATIONS.length]!,
    }));
  }
  const user = expand(USER_TEMPLATES);
  const system = expand(SYSTEM_TEMPLATES);
  const actorIds = [people.owner.id, people.member.id, ...Array.from({ length: AUDIT_ACTORS }, (_, i) => `bench-actor-${i}`)];
  const actorEmails = [people.owner.email, people.member.email, ...Array.from({ length: AUDIT_ACTORS }, (_, i) => `actor-${i}@bench.example`)];
  const spanMs = spanDays * 86_400_000;

  await inChunks(
    count,
    async (from, to) => {
      await db.execute(sql`
        with pools as (
          select ${textArray(user.actions)} as u_action, ${textArray(user.details)} as u_detail, ${textArray(user.targets)} as u_target,
                 ${boolArray(user.inProject)} as u_in_project, ${boolArray(user.located)} as u_located,
                 ${textArray(system.actions)} as s_action, ${textArray(system.details)} as s_detail, ${textArray(system.targets)} as s_target,
                 ${textArray(orgProjects.map((p) => p.id))} as p_id, ${textArray(orgProjects.map((p) => p.name))} as p_name,
                 ${textArray(orgVms.map((v) => v.id))} as v_id, ${textArray(orgVms.map((v) => v.name))} as v_name,
                 ${textArray(orgVms.map((v) => v.location))} as v_loc, ${textArray(LOCATIONS)} as loc,
                 ${textArray(actorIds)} as a_id, ${textArray(actorEmails)} as a_email, ${textArray(SURFACES)} as surface
        ),
        rows as (
          select g,
                 abs(hashint8(g)::bigint) as h1, abs(hashint8(g + 1000003)::bigint) as h2, abs(hashint8(-g - 1)::bigint) as h3,
                 (abs(hashint8(g)::bigint) % 100) < 8 as is_system
          from generate_series(${n(from)}::bigint, ${n(to)}::bigint) as g
        ),
        picked as (
          select r.*, p.*,
                 case when is_system then 1 + (h1 / 100) % 3 else 1 + (h1 / 100) % ${n(user.actions.length)} end as t,
                 case when is_system then 0 when (h2 % 100) < 60 then 1 else 2 + (h2 / 100) % ${n(actorIds.length - 1)} end as actor,
                 1 + (h2 / 10000) % ${n(orgProjects.length)} as project,
                 1 + (h3 % ${n(orgVms.length)}) as vm,
                 (h3 / 100) as h4
          from rows r cross join pools p
        ),
        shaped as (
          select *,
                 case when is_system then s_target[t] else u_target[t] end as target_type,
                 case when is_system then true else u_in_project[t] end as in_project,
                 case when is_system then true else u_located[t] end as located,
                 case
                   when is_system then 'OK'
                   when h4 % 100 < 5 then 'INVALID_ARGUMENT'
                   when h4 % 100 < 8 then 'NOT_FOUND'
                   when actor <> 1 and h4 % 100 < 26 then 'PERMISSION_DENIED'
                   else 'OK'
                 end as result
          from picked
        )
        insert into audit_log (id, organization_id, organization_name, project_id, project_name, action, action_detail, actor_id,
          actor_email, actor_type, client_ip, start_time, end_time, result, error_message, surface, locations, target_ids,
          target_names, target_type)
        select
          md5('bench-audit-' || ${organizationId} || '-' || g)::uuid::text,
          ${organizationId},
          ${org.name},
          case when in_project then p_id[project] end,
          case when in_project then p_name[project] end,
          case when is_system then s_action[t] else u_action[t] end,
          case when is_system then s_detail[t] else u_detail[t] end,
          case when is_system then 'system' else a_id[actor] end,
          case when is_system then '' else a_email[actor] end,
          case when is_system then 'system' else 'user' end,
          case when is_system then '' else '198.51.100.' || (2 + h4 % 253) end,
          ${now.toISOString()}::timestamptz - make_interval(secs => (g * ${n(spanMs / count / 1000)}) + (h3 % 5000) / 1000.0),
          ${now.toISOString()}::timestamptz - make_interval(secs => (g * ${n(spanMs / count / 1000)}) + (h3 % 5000) / 1000.0) + make_interval(secs => 0.04 + (h4 % 2400) / 1000.0),
          result,
          case result when 'OK' then '' when 'INVALID_ARGUMENT' then 'name: must contain only letters, digits, underscores and dashes'
            when 'NOT_FOUND' then 'the requested resource was not found' else 'the caller lacks the permission for this action' end,
          case when is_system then 'api' else surface[1 + h4 % 5] end,
          case when not located then '{}'::text[] when target_type = 'VM' then array[v_loc[vm]] else array[loc[1 + (h4 / 7) % 6]] end,
          array[case target_type
            when 'VM' then v_id[vm]
            when 'Disk' then md5('bench-disk-' || (h4 % ${n(AUDIT_DISKS)}))::uuid::text
            when 'Project' then p_id[project]
            when 'S3Key' then md5('bench-s3-' || (h4 % ${n(AUDIT_S3_KEYS)}))::uuid::text
            when 'SSHKey' then md5('bench-ssh-' || (h4 % 4))::uuid::text
            when 'Organization' then ${organizationId}
            when 'Snapshot' then md5('bench-snap-' || (h4 % ${n(AUDIT_SNAPSHOTS)}))::uuid::text
            else md5('bench-binding-' || g)::uuid::text end],
          case target_type
            when 'VM' then array[v_name[vm]]
            when 'Disk' then array['disk-' || (h4 % ${n(AUDIT_DISKS)})]
            when 'Project' then array[p_name[project]]
            when 'S3Key' then array['key-' || (h4 % ${n(AUDIT_S3_KEYS)})]
            when 'SSHKey' then array[(array['laptop', 'ci-runner', 'bastion', 'workstation'])[1 + h4 % 4]]
            when 'Organization' then array[${org.name}]
            when 'Snapshot' then array['snap-' || (h4 % ${n(AUDIT_SNAPSHOTS)})]
            else '{}'::text[] end,
          target_type
        from shaped
        order by g desc`);
    },
    progress,
  );
  await db.execute(sql`analyze audit_log`);
  await db.execute(sql`analyze audit_log_targets`);
}

/** Metered products with their unit prices (decimal strings). */
const PRODUCTS: Array<[resourceType: string, productLine: string, metric: string, price: string, perDay: number]> = [
  ["h100-80gb-sxm-ib.8x", "h100", "gpu-hours", "2.490000", 192],
  ["h200-141gb-sxm-ib.8x", "h200", "gpu-hours", "3.290000", 192],
  ["a100-80gb-sxm-ib.8x", "a100", "gpu-hours", "1.790000", 192],
  ["l40s-48gb.4x", "l40s", "gpu-hours", "0.990000", 96],
  ["persistent-ssd", "persistent-ssd", "gib-months", "0.070000", 400],
  ["network-egress", "network-egress", "gb", "0.010000", 2000],
];
const REGIONS = ["us-east1", "us-northcentral1", "us-west1", "eu-north1", "eu-west2"];

/**
 * `count` usage rows: `days` days (a year unless told) ending at `today`, each day one row per
 * metered resource (count / days resources, spread over the organization's
 * projects, the products and the regions), quantities varying by day.
 */
export async function generateUsage(db: Database, input: { organizationId: string; count: number; today: string; days?: number }, progress?: (done: number) => void) {
  const { organizationId, count, today, days = 365 } = input;
  const resources = Math.ceil(count / days);
  const orgProjects = await db.select({ id: projects.id, name: projects.name }).from(projects).where(eq(projects.organizationId, organizationId)).orderBy(asc(projects.name));
  if (orgProjects.length === 0) throw new Error("the organization needs its demo projects");
  await inChunks(
    count,
    async (from, to) => {
      await db.execute(sql`
        with pools as (
          select ${textArray(orgProjects.map((p) => p.id))} as p_id, ${textArray(orgProjects.map((p) => p.name))} as p_name,
                 ${textArray(PRODUCTS.map((p) => p[0]))} as r_type, ${textArray(PRODUCTS.map((p) => p[1]))} as line,
                 ${textArray(PRODUCTS.map((p) => p[2]))} as metric, ${textArray(PRODUCTS.map((p) => p[3]))} as price,
                 ${textArray(PRODUCTS.map((p) => String(p[4])))} as per_day, ${textArray(REGIONS)} as region
        ),
        rows as (
          select g, g % ${n(resources)} as res, g / ${n(resources)} as day, abs(hashint8(g)::bigint) as h
          from generate_series(${n(from)}::bigint, ${n(to)}::bigint) as g
        ),
        shaped as (
          select r.*, p.*, 1 + r.res % ${n(orgProjects.length)} as project, 1 + (r.res / ${n(orgProjects.length)}) % ${n(PRODUCTS.length)} as product,
                 1 + (r.res / ${n(orgProjects.length * PRODUCTS.length)}) % ${n(REGIONS.length)} as reg
          from rows r cross join pools p
        )
        insert into usage_records (organization_id, project_id, project_name, usage_date, region, resource_type, product_line,
          resource_id, resource_name, billable_metric, quantity, unit_price, reservation_id)
        select ${organizationId}, p_id[project], p_name[project], ${today}::date - (${n(days - 1)} - day)::int, region[reg], r_type[product], line[product],
               md5('bench-resource-' || res)::uuid::text, p_name[project] || '-' || line[product] || '-' || res,
               metric[product], round((per_day[product]::numeric * (0.2 + (h % 800) / 1000.0)), 6), price[product]::numeric, null
        from shaped
        order by day, res`);
    },
    progress,
  );
  await db.execute(sql`analyze usage_records`);
}
