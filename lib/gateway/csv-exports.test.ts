import { and, eq } from "drizzle-orm";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BILLING_EXPORT_COLUMNS } from "@/lib/contract/billing";
import { USAGE_EXPORT_COLUMNS } from "@/lib/contract/usage";
import { FORMULA_START } from "@/lib/csv-formula";
import { projects, usageRecords } from "./store/schema";
import { postgresPool } from "./csv";
import { copySlot } from "./csv-copy";
import { createTestGateway, opPath, type TestGateway } from "./testing";

/** Formula injection through the gateway's CSV exports, end to end through the API. */
let t: TestGateway;
let org: string;
let projectId: string;
const PAYLOAD = "@SUM(1+1)*cmd|' /C calc'!A1";
const RESOURCE = "=cmd|' /C calc'!A0";
const RANGE = { start_date: "2002-03-01", end_date: "2002-03-31" };

beforeAll(async () => {
  t = await createTestGateway();
  org = t.demo.organization_id;
  const [project] = await t.gateway.store.db
    .select()
    .from(projects)
    .where(and(eq(projects.organizationId, org), eq(projects.name, "llm-training")));
  projectId = project!.id;
  const row = { organizationId: org, projectId, usageDate: "2002-03-04", region: "us-east1", resourceType: "h100-80gb-sxm-ib.8x", productLine: "h100", billableMetric: "gpu-hours" };
  await t.gateway.store.db.insert(usageRecords).values([
    { ...row, resourceId: RESOURCE, resourceName: "-2+3", quantity: "1.5", unitPrice: "2.49" },
    // A credit: negative quantity, so a negative cost.
    { ...row, resourceId: "r-credit", resourceName: "credit", quantity: "-5", unitPrice: "2.50" },
  ]);
});
afterAll(() => t.close());

async function exportOf(path: string, query: Record<string, string>): Promise<Record<string, string>[]> {
  const res = await t.call("owner", "GET", path, { query });
  expect(res.status).toBe(200);
  const parsed = Papa.parse<Record<string, string>>((await res.text()).trimEnd(), { header: true, newline: "\n", delimiter: "," });
  expect(parsed.errors).toEqual([]);
  return parsed.data;
}

describe("CSV exports and formula injection", () => {
  it("writes a project renamed to a formula by a Project Admin as text in the owner's billing export", async () => {
    const renamed = await t.opJson("member", "updateProject", { query: { project_id: projectId }, body: { name: PAYLOAD } });
    expect(renamed.status).toBe(200);
    const rows = await exportOf(opPath("getBillingExportProductline", { organization_id: org }), RANGE);
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.project_name)).toEqual([`'${PAYLOAD}`, `'${PAYLOAD}`]);
    expect(rows[0]!.resource_name).toBe("'-2+3");
    // The credit's numbers stay numbers.
    expect(rows[1]).toMatchObject({ quantity: "-5.000000", unit_price: "2.500000", cost: "-12.50" });
    for (const row of rows) for (const column of ["project_name", "resource_name", "metric", "product_line", "resource_type", "region"]) expect(FORMULA_START.test(row[column]!)).toBe(false);
    expect(Object.keys(rows[0]!)).toEqual([...BILLING_EXPORT_COLUMNS]);
  });

  it("writes a resource id that looks like a formula as text in the usage export, and the credit's quantity as a number", async () => {
    const rows = await exportOf(opPath("getUsageExport", { organization_id: org }), { ...RANGE, projects: projectId, resources: `${RESOURCE},r-credit`, resource_types: "h100-80gb-sxm-ib.8x", regions: "us-east1" });
    expect(Object.keys(rows[0]!)).toEqual([...USAGE_EXPORT_COLUMNS]);
    expect(rows.map((r) => r.resource_id)).toEqual([`'${RESOURCE}`, "r-credit"]);
    expect(rows[1]!.quantity).toBe("-5.000000");
  });

  it("answers HEAD with the headers alone, starting no export", async () => {
    const path = opPath("getBillingExportProductline", { organization_id: org });
    for (let i = 0; i < 4; i++) {
      const res = await t.call("owner", "HEAD", path, { query: RANGE });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(await res.text()).toBe("");
    }
    // On PostgreSQL an export holds a connection and a COPY slot: none is left held.
    const pool = postgresPool(t.gateway.store.db);
    if (pool) {
      expect(copySlot(pool)).toBe(true);
      expect(pool.totalCount - pool.idleCount).toBe(0);
    }
    expect(await exportOf(path, RANGE)).toHaveLength(2);
  });

  it("refuses a filter holding a NUL character with a 400, on either engine", async () => {
    const res = await t.call("owner", "GET", opPath("getBillingExportProductline", { organization_id: org }), { query: { ...RANGE, regions: "us-east1\0" } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ message: expect.stringMatching(/NUL/) });
  });
});
