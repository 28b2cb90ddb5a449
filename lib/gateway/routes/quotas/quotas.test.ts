import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gibOf, gpusOf } from "../../store/queries/quotas";
import { disks, orgQuotas, projects, vms } from "../../store/schema";
import { createTestGateway, type TestGateway } from "../../testing";

let t: TestGateway;
let org: string;
beforeAll(async () => {
  t = await createTestGateway();
  org = t.demo.organization_id;
});
afterAll(() => t.close());

interface Quota {
  available: number;
  description: string;
  max: number;
  programmatic_name: string;
  type: string;
  used: number;
}

async function quotas(who: "owner" | "auditor" = "owner"): Promise<Record<string, Quota>> {
  const res = await t.opJson<{ quotas: Quota[] }>(who, "listOrgQuotas", { params: { organization_id: org } });
  expect(res.status).toBe(200);
  return Object.fromEntries(res.body.quotas.map((q) => [q.programmatic_name, q]));
}

describe("GPU and disk sizes", () => {
  it("reads GPUs from <product>.<n>x and GiB from sizes", () => {
    expect(gpusOf("h100-80gb-sxm-ib.8x")).toEqual({ productLine: "h100", gpus: 8 });
    expect(gpusOf("l40s-48gb.1x")).toEqual({ productLine: "l40s", gpus: 1 });
    expect(gpusOf("cpu-only")).toEqual({ productLine: "", gpus: 0 });
    expect(gibOf("500GiB")).toBe(500);
    expect(gibOf("2TiB")).toBe(2048);
    expect(gibOf("lots")).toBe(0);
  });
});

describe("GET /organizations/{organization_id}/quotas", () => {
  it("answers stored maxima and use counted from live rows", async () => {
    const q = await quotas();
    const db = t.gateway.store.db;
    const orgVms = await db.select({ type: vms.type }).from(vms).where(eq(vms.organizationId, org));
    const orgProjects = await db.select().from(projects).where(eq(projects.organizationId, org));
    const stored = await db.select().from(orgQuotas).where(eq(orgQuotas.organizationId, org));
    expect(q.projects!.used).toBe(orgProjects.length);
    expect(q.vms!.used).toBe(orgVms.length);
    expect(q.users!.used).toBe(3); // owner, member, auditor
    for (const line of ["h100", "h200", "a100", "l40s"]) {
      const expected = orgVms.map((v) => gpusOf(v.type)).filter((g) => g.productLine === line).reduce((s, g) => s + g.gpus, 0);
      expect(q[`${line}_gpus`]!.used, line).toBe(expected);
    }
    expect(q.disk_gib!.used).toBeGreaterThan(0);
    for (const quota of Object.values(q)) {
      expect(quota.max).toBe(stored.find((s) => s.type === quota.type)?.max);
      expect(quota.available).toBe(Math.max(0, quota.max - quota.used));
      expect(quota.type).toMatch(/^ORG_QUOTAS_MAXIMUM_/);
    }
  });

  it("is readable with billing.read and refused to others (members without it included)", async () => {
    await quotas("auditor");
    expect((await t.opJson("member", "listOrgQuotas", { params: { organization_id: org } })).status).toBe(403);
    expect((await t.opJson("outsider", "listOrgQuotas", { params: { organization_id: org } })).status).toBe(403);
  });

  it("counts a new project, and drops with a deleted project and its VMs and disks", async () => {
    const before = await quotas();
    const created = await t.opJson<{ project: { id: string } }>("owner", "createProject", {
      body: { organization_id: org, name: "quota-check" },
    });
    expect(created.status).toBe(200);
    expect((await quotas()).projects!.used).toBe(before.projects!.used + 1);

    const [victim] = await t.gateway.store.db.select().from(projects).where(eq(projects.name, "llm-training"));
    const victimVms = await t.gateway.store.db.select({ type: vms.type }).from(vms).where(eq(vms.projectId, victim!.id));
    const victimDisks = await t.gateway.store.db.select({ size: disks.size }).from(disks).where(eq(disks.projectId, victim!.id));
    expect(victimVms.length).toBeGreaterThan(0);
    expect((await t.opJson("owner", "deleteProject", { params: { project_id: victim!.id } })).status).toBe(200);

    const after = await quotas();
    expect(after.projects!.used).toBe(before.projects!.used);
    expect(after.vms!.used).toBe(before.vms!.used - victimVms.length);
    expect(after.vms!.available).toBe(after.vms!.max - after.vms!.used);
    const gpus = victimVms.map((v) => gpusOf(v.type));
    for (const line of ["h100", "h200", "a100", "l40s"]) {
      const gone = gpus.filter((g) => g.productLine === line).reduce((s, g) => s + g.gpus, 0);
      expect(after[`${line}_gpus`]!.used, line).toBe(before[`${line}_gpus`]!.used - gone);
    }
    expect(after.disk_gib!.used).toBe(before.disk_gib!.used - victimDisks.reduce((s, d) => s + gibOf(d.size), 0));
  });

  it("falls back to the default maxima for an organization without stored ones", async () => {
    await t.gateway.store.db.delete(orgQuotas).where(eq(orgQuotas.organizationId, org));
    const q = await quotas();
    expect(q.projects!.max).toBe(20);
    expect(q.vms!.available).toBe(Math.max(0, q.vms!.max - q.vms!.used));
  });
});
