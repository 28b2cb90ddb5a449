import { count, eq } from "drizzle-orm";
import type { OrgQuota } from "@/lib/contract/quotas";
import type { Database } from "../client";
import { disks, memberships, orgQuotas, projects, vms } from "../schema";

/** The GPUs of a VM type <product>.<n>x: h100-80gb-sxm-ib.8x is 8 H100 GPUs. */
export function gpusOf(vmType: string): { productLine: string; gpus: number } {
  const match = /^([a-z0-9]+)[^.]*\.(\d+)x$/i.exec(vmType);
  return match ? { productLine: (match[1] ?? "").toLowerCase(), gpus: Number(match[2]) } : { productLine: "", gpus: 0 };
}

/** GiB of a disk size such as "500GiB" or "2TiB". */
export function gibOf(size: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(GiB|TiB)$/i.exec(size.trim());
  if (!match) return 0;
  return Math.ceil(Number(match[1]) * ((match[2] ?? "").toLowerCase() === "tib" ? 1024 : 1));
}

interface Live {
  projects: number;
  users: number;
  vms: number;
  gpus: Map<string, number>;
  diskGib: number;
}

/** Every quota the gateway knows, how its use is counted, and the maximum an organization starts with. */
export const QUOTA_CATALOGUE: Array<{ type: string; programmaticName: string; description: string; defaultMax: number; used: (live: Live) => number }> = [
  { type: "ORG_QUOTAS_MAXIMUM_PROJECTS", programmaticName: "projects", description: "Projects", defaultMax: 20, used: (l) => l.projects },
  { type: "ORG_QUOTAS_MAXIMUM_USERS", programmaticName: "users", description: "Users", defaultMax: 25, used: (l) => l.users },
  { type: "ORG_QUOTAS_MAXIMUM_VMS", programmaticName: "vms", description: "Virtual machines", defaultMax: 40, used: (l) => l.vms },
  ...["h100", "h200", "a100", "l40s"].map((line) => ({
    type: `ORG_QUOTAS_MAXIMUM_${line.toUpperCase()}_GPUS`,
    programmaticName: `${line}_gpus`,
    description: `${line.toUpperCase()} GPUs`,
    defaultMax: 64,
    used: (l: Live) => l.gpus.get(line) ?? 0,
  })),
  { type: "ORG_QUOTAS_MAXIMUM_DISK_GIB", programmaticName: "disk_gib", description: "Persistent disk storage (GiB)", defaultMax: 100_000, used: (l) => l.diskGib },
];

async function liveUsage(db: Database, orgId: string): Promise<Live> {
  const [projectCount, userCount, vmTypes, diskSizes] = await Promise.all([
    db.select({ n: count() }).from(projects).where(eq(projects.organizationId, orgId)),
    db.select({ n: count() }).from(memberships).where(eq(memberships.organizationId, orgId)),
    db.select({ type: vms.type, n: count() }).from(vms).where(eq(vms.organizationId, orgId)).groupBy(vms.type),
    db
      .select({ size: disks.size, n: count() })
      .from(disks)
      .innerJoin(projects, eq(projects.id, disks.projectId))
      .where(eq(projects.organizationId, orgId))
      .groupBy(disks.size),
  ]);
  const gpus = new Map<string, number>();
  for (const { type, n } of vmTypes) {
    const { productLine, gpus: each } = gpusOf(type);
    if (productLine) gpus.set(productLine, (gpus.get(productLine) ?? 0) + each * n);
  }
  return {
    projects: projectCount[0]?.n ?? 0,
    users: userCount[0]?.n ?? 0,
    vms: vmTypes.reduce((sum, r) => sum + r.n, 0),
    gpus,
    diskGib: diskSizes.reduce((sum, r) => sum + gibOf(r.size) * r.n, 0),
  };
}

/** Each quota: the stored maximum (or the catalogue's default) and the use counted from live rows. */
export async function listQuotas(db: Database, orgId: string): Promise<OrgQuota[]> {
  const [stored, live] = await Promise.all([
    db.select({ type: orgQuotas.type, max: orgQuotas.max }).from(orgQuotas).where(eq(orgQuotas.organizationId, orgId)),
    liveUsage(db, orgId),
  ]);
  const maxima = new Map(stored.map((q) => [q.type, q.max]));
  return QUOTA_CATALOGUE.map((q) => {
    const max = maxima.get(q.type) ?? q.defaultMax;
    const used = q.used(live);
    return { type: q.type, programmatic_name: q.programmaticName, description: q.description, max, used, available: Math.max(0, max - used) };
  });
}
