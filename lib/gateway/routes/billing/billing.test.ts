import { and, eq, gte, lte, sql } from "drizzle-orm";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BILLING_EXPORT_COLUMNS } from "@/lib/contract/billing";
import { usageLines } from "../../store/queries/usage-export";
import { projects, usageRecords } from "../../store/schema";
import { clearOfMidnightUtc, createTestGateway, opPath, type TestGateway } from "../../testing";

let t: TestGateway;
let org: string;
const ids: Record<string, string> = {};
beforeAll(async () => {
  // The tests below expect the demo's data to run through today: up to five minutes' wait before midnight (UTC), hence the hook's timeout.
  await clearOfMidnightUtc();
  t = await createTestGateway();
  org = t.demo.organization_id;
  const rows = await t.gateway.store.db.select().from(projects).where(eq(projects.organizationId, org));
  for (const row of rows) ids[row.name] = row.id;
}, 420_000);
afterAll(() => t.close());

const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

interface CostDatum {
  billable_metric: string;
  cost: number;
  date: string;
  project_id: string;
  quantity: number;
  region: string;
  resource_type: string;
  unit_price: number;
}

async function storedCount(where: Parameters<typeof and>) {
  const [row] = await t.gateway.store.db
    .select({ n: sql<number>`count(*)::int` })
    .from(usageRecords)
    .where(and(eq(usageRecords.organizationId, org), ...where));
  return Number(row?.n);
}

describe("GET /organizations/{organization_id}/billing/costs", () => {
  const path = () => opPath("getBillingCosts", { organization_id: org });

  it("answers the last 30 days of daily spend by project by default", async () => {
    const res = await t.json<{ data: CostDatum[]; last_updated: string }>("owner", "GET", path());
    expect(res.status).toBe(200);
    const dates = new Set(res.body.data.map((d) => d.date));
    expect(dates.size).toBe(30);
    expect([...dates].sort()[0]).toBe(daysAgo(29));
    expect([...dates].sort().at(-1)).toBe(today());
    expect(Date.parse(res.body.last_updated)).not.toBeNaN();
    expect(new Set(res.body.data.map((d) => d.project_id))).toEqual(new Set(Object.values(ids)));
    for (const d of res.body.data) {
      expect(d.cost).toBeGreaterThan(0);
      // Costs are rounded per resource and day, so a day's total is within a cent per row of quantity × price.
      expect(Math.abs(d.cost - d.quantity * d.unit_price)).toBeLessThan(0.05);
    }
  });

  it("keeps to a given period and sums what the store holds", async () => {
    const start = daysAgo(10);
    const end = daysAgo(8);
    const res = await t.json<{ data: CostDatum[] }>("auditor", "GET", path(), { query: { start_date: start, end_date: end } });
    expect((await t.call("member", "GET", path(), { query: { start_date: start, end_date: end } })).status).toBe(403);
    expect(res.status).toBe(200);
    expect(new Set(res.body.data.map((d) => d.date))).toEqual(new Set([start, daysAgo(9), end]));
    const [stored] = await t.gateway.store.db
      .select({ total: sql<string>`sum(${usageRecords.cost})` })
      .from(usageRecords)
      .where(and(eq(usageRecords.organizationId, org), gte(usageRecords.usageDate, start), lte(usageRecords.usageDate, end)));
    const answered = res.body.data.reduce((sum, d) => sum + Math.round(d.cost * 100), 0);
    expect(answered).toBe(Math.round(Number(stored?.total) * 100));
  });

  it("refuses bad dates with 400 naming the field, and non-members with 403", async () => {
    const bad = await t.json<{ message: string }>("owner", "GET", path(), { query: { start_date: "2025-02-30" } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^query\.start_date:/);
    const reversed = await t.json<{ message: string }>("owner", "GET", path(), { query: { start_date: "2025-03-02", end_date: "2025-03-01" } });
    expect(reversed.status).toBe(400);
    expect(reversed.body.message).toMatch(/start_date/);
    const long = await t.json<{ message: string }>("owner", "GET", path(), { query: { start_date: "2020-01-01", end_date: "2025-12-31" } });
    expect(long.status).toBe(400);
    expect(long.body.message).toMatch(/^query\.start_date: the period must be at most 366 days/);
    expect((await t.json("owner", "GET", path(), { query: { start_date: "2025-01-01", end_date: "2026-01-01" } })).status).toBe(200);
    expect((await t.json("outsider", "GET", path())).status).toBe(403);
  });
});

describe("GET /organizations/{organization_id}/billing/export-productline", () => {
  const path = () => opPath("getBillingExportProductline", { organization_id: org });

  it("streams every resource-day of the period as CSV with the reference's columns", async () => {
    const start = daysAgo(20);
    const end = today();
    const res = await t.call("owner", "GET", path(), { query: { start_date: start, end_date: end } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="billing-productline-${start}-to-${end}.csv"`);
    const parsed = Papa.parse<string[]>((await res.text()).trim());
    const [header, ...rows] = parsed.data;
    expect(header).toEqual([...BILLING_EXPORT_COLUMNS]);
    const expected = await storedCount([gte(usageRecords.usageDate, start), lte(usageRecords.usageDate, end)]);
    expect(expected).toBeGreaterThan(3000); // several batches
    expect(rows).toHaveLength(expected);
    const col = (name: string) => BILLING_EXPORT_COLUMNS.indexOf(name as never);
    const dates = rows.map((r) => r[col("usage_date")] ?? "");
    expect([...dates].sort()).toEqual(dates);
    expect(new Set(rows.map((r) => `${r[col("resource_name")]}|${r[col("usage_date")]}`)).size).toBe(rows.length);
    const first = rows[0]!;
    expect(first[col("project_name")]).toBe(Object.entries(ids).find(([, id]) => id === first[col("project_id")])?.[0]);
    expect(Number(first[col("cost")])).toBeCloseTo(Number(first[col("quantity")]) * Number(first[col("unit_price")]), 1);
  });

  it("filters by projects, product lines and regions, comma-separated or repeated", async () => {
    const start = daysAgo(6);
    const end = today();
    const res = await t.call("owner", "GET", path(), {
      query: [
        ["start_date", start],
        ["end_date", end],
        ["projects", `${ids["llm-training"]},${ids["staging"]}`],
        ["product_lines", "h100"],
        ["product_lines", "persistent-ssd"],
        ["regions", "us-east1"],
      ],
    });
    expect(res.status).toBe(200);
    const rows = Papa.parse<string[]>((await res.text()).trim()).data.slice(1);
    expect(rows).toHaveLength(2 * 2 * 7);
    const col = (name: string) => BILLING_EXPORT_COLUMNS.indexOf(name as never);
    expect(new Set(rows.map((r) => r[col("product_line")]))).toEqual(new Set(["h100", "persistent-ssd"]));
    // The product as the billing page names it, beside its line.
    expect(new Set(rows.map((r) => r[col("resource_type")]))).toEqual(new Set(["h100-80gb-sxm-ib.8x", "persistent-ssd"]));
    expect(new Set(rows.map((r) => r[col("region")]))).toEqual(new Set(["us-east1"]));
    expect(new Set(rows.map((r) => r[col("project_name")]))).toEqual(new Set(["llm-training", "staging"]));
  });

  it("answers only the header row when nothing matches", async () => {
    const res = await t.call("owner", "GET", path(), { query: { start_date: "2001-01-01", end_date: "2001-01-31" } });
    expect(res.status).toBe(200);
    expect((await res.text()).trim()).toBe(BILLING_EXPORT_COLUMNS.join(","));
  });

  it("requires valid start_date and end_date with start ≤ end", async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ end_date: today() }, /^query\.start_date: is required/],
      [{ start_date: today() }, /^query\.end_date: is required/],
      [{ start_date: "2025-13-01", end_date: today() }, /^query\.start_date:/],
      [{ start_date: "2025-01-01", end_date: "01/02/2025" }, /^query\.end_date:/],
      [{ start_date: "2025-02-01", end_date: "2025-01-01" }, /^query\.start_date: must not be after end_date/],
    ];
    for (const [query, message] of cases) {
      const res = await t.json<{ message: string }>("owner", "GET", path(), { query });
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    // A date that does not exist is refused for what it is, not also compared with the other end.
    const impossible = await t.json<{ message: string }>("owner", "GET", path(), { query: { start_date: "2026-02-30", end_date: "2026-02-01" } });
    expect(impossible.status).toBe(400);
    expect(impossible.body.message).toMatch(/^query\.start_date: must be a valid date YYYY-MM-DD/);
    expect(impossible.body.message).not.toMatch(/after/);
  });

  it("refuses non-members, and answers a bad signature with 403 as it declares no 401", async () => {
    const query = { start_date: daysAgo(1), end_date: today() };
    expect((await t.json("outsider", "GET", path(), { query })).status).toBe(403);
    const forged = await t.json("owner", "GET", path(), {
      query,
      credentials: { accessKeyId: t.demo.owner.access_key_id, secretKey: t.demo.member.secret_key },
    });
    expect(forged.status).toBe(403);
  });

  it("reads the store in keyset batches of at most the batch size", async () => {
    const filter = { startDate: daysAgo(9), endDate: today() };
    const sizes: number[] = [];
    const seen = new Set<number>();
    for await (const batch of usageLines(t.gateway.store.db, org, filter, 500)) {
      sizes.push(batch.length);
      batch.forEach((line) => seen.add(line.seq));
    }
    const expected = await storedCount([gte(usageRecords.usageDate, filter.startDate)]);
    expect(sizes.every((n) => n <= 500)).toBe(true);
    expect(sizes.length).toBe(Math.ceil(expected / 500));
    expect(seen.size).toBe(expected);
  });
});

describe("GET /organizations/{organization_id}/billing/options", () => {
  const path = () => opPath("getBillingOptions", { organization_id: org });
  interface Options {
    projects: string[];
    resource_types: string[];
    product_lines: string[];
    regions: string[];
    start_date: string;
    end_date: string;
  }

  it("lists the values that exist and the span of the on-demand data", async () => {
    const res = await t.json<Options>("owner", "GET", path());
    expect(res.status).toBe(200);
    expect(new Set(res.body.projects)).toEqual(new Set(Object.values(ids)));
    expect(res.body.product_lines).toEqual(["a100", "h100", "h200", "l40s", "network-egress", "persistent-ssd"]);
    expect(res.body.resource_types).toContain("h100-80gb-sxm-ib.8x");
    expect(res.body.regions).toEqual(["eu-north1", "eu-west2", "us-east1", "us-northcentral1", "us-west1"]);
    expect(res.body.start_date).toBe(daysAgo(179));
    expect(res.body.end_date).toBe(today());
  });

  it("narrows to a period, and an empty period has no values", async () => {
    const narrowed = await t.json<Options>("auditor", "GET", path(), { query: { start_date: daysAgo(3), end_date: daysAgo(2) } });
    expect(narrowed.status).toBe(200);
    expect([narrowed.body.start_date, narrowed.body.end_date]).toEqual([daysAgo(3), daysAgo(2)]);
    const empty = await t.json<Options>("owner", "GET", path(), { query: { start_date: "2001-01-01", end_date: "2001-01-02" } });
    expect(empty.body).toEqual({ projects: [], project_names: {}, resource_types: [], product_lines: [], regions: [], start_date: "", end_date: "" });
  });

  it("leaves out usage billed under a reservation", async () => {
    const line = (productLine: string, reservationId: string | null) => ({
      organizationId: org,
      projectId: ids["staging"]!,
      usageDate: "2001-06-01",
      region: "us-east1",
      resourceType: productLine,
      productLine,
      resourceId: `${productLine}-1`,
      resourceName: productLine,
      billableMetric: "gpu-hours",
      quantity: "1",
      unitPrice: "1",
      reservationId,
    });
    await t.gateway.store.db.insert(usageRecords).values([line("reserved-line", "r-1"), line("on-demand-line", null)]);
    const res = await t.json<Options>("owner", "GET", path(), { query: { start_date: "2001-06-01", end_date: "2001-06-01" } });
    expect(res.body.product_lines).toEqual(["on-demand-line"]);
    const usage = await t.opJson<Options>("owner", "getUsageOptions", { params: { organization_id: org } });
    expect(usage.body.product_lines).toEqual(expect.arrayContaining(["on-demand-line", "reserved-line"]));
    await t.gateway.store.db.delete(usageRecords).where(and(eq(usageRecords.organizationId, org), eq(usageRecords.usageDate, "2001-06-01")));
  });

  it("refuses bad dates and non-members", async () => {
    expect((await t.json("owner", "GET", path(), { query: { end_date: "tomorrow" } })).status).toBe(400);
    expect((await t.json("outsider", "GET", path())).status).toBe(403);
  });
});
