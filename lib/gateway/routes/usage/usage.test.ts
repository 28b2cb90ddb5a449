import { and, eq, gte, inArray, lte, sql } from "drizzle-orm";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USAGE_EXPORT_COLUMNS } from "@/lib/contract/usage";
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

interface Usage {
  billable_metric: string;
  date: string;
  project_id: string;
  quantity: number;
  region: string;
  reservation_id: string;
  resource_type: string;
}
type Query = Array<[string, string]> | Record<string, string>;
const usage = (query: Query = {}, who: "owner" | "member" | "outsider" = "owner") =>
  t.opJson<{ items: Usage[]; code: number; message: string; details: unknown[] }>(who, "getUsage", { params: { org_id: org }, query });

const total = (items: Usage[]) => items.reduce((sum, i) => sum + i.quantity, 0);

describe("GET /organizations/{org_id}/usage", () => {
  it("answers daily usage of the last 30 days by project, product, region and reservation", async () => {
    const res = await usage();
    expect(res.status).toBe(200);
    const dates = [...new Set(res.body.items.map((i) => i.date))].sort();
    expect(dates).toHaveLength(30);
    expect([dates[0], dates.at(-1)]).toEqual([daysAgo(29), today()]);
    // 6 projects × 6 products × 5 regions, each once a day.
    expect(res.body.items).toHaveLength(30 * 180);
    expect(res.body.items.some((i) => i.reservation_id !== "")).toBe(true);
    expect(res.body.items.every((i) => i.quantity > 0 && /^\d{4}-\d{2}-\d{2}$/.test(i.date))).toBe(true);
  });

  it("sums each month under its first day, in fewer rows with the same totals", async () => {
    const range = { start_date: daysAgo(120), end_date: daysAgo(1) };
    const daily = await usage({ ...range, interval: "daily" });
    const monthly = await usage({ ...range, interval: "monthly" });
    expect(monthly.status).toBe(200);
    expect(monthly.body.items.length).toBeLessThan(daily.body.items.length);
    expect(monthly.body.items.every((i) => i.date.endsWith("-01"))).toBe(true);
    expect(new Set(monthly.body.items.map((i) => i.date)).size).toBeGreaterThanOrEqual(4);
    expect(total(monthly.body.items)).toBeCloseTo(total(daily.body.items), 3);
    const key = (i: Usage) => `${i.project_id}|${i.resource_type}|${i.region}|${i.reservation_id}`;
    const byKey = (items: Usage[]) => items.reduce((m, i) => m.set(key(i), (m.get(key(i)) ?? 0) + i.quantity), new Map<string, number>());
    const d = byKey(daily.body.items);
    for (const [k, q] of byKey(monthly.body.items)) expect(q).toBeCloseTo(d.get(k) ?? -1, 3);
  });

  it("filters by repeated projects, resource_types and regions, and does not split commas", async () => {
    const res = await usage([
      ["projects", ids["llm-training"]!],
      ["projects", ids["staging"]!],
      ["resource_types", "h100-80gb-sxm-ib.8x"],
      ["regions", "us-east1"],
      ["regions", "eu-north1"],
      ["start_date", daysAgo(9)],
    ]);
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(10 * 2 * 2);
    expect(new Set(res.body.items.map((i) => i.project_id))).toEqual(new Set([ids["llm-training"], ids["staging"]]));
    expect(new Set(res.body.items.map((i) => i.region))).toEqual(new Set(["us-east1", "eu-north1"]));
    const commas = await usage({ projects: `${ids["llm-training"]},${ids["staging"]}` });
    expect(commas.status).toBe(200);
    expect(commas.body.items).toEqual([]);
  });

  it("matches the store's totals for a period", async () => {
    const res = await usage({ start_date: daysAgo(5), end_date: daysAgo(3), resource_types: "persistent-ssd" });
    const [stored] = await t.gateway.store.db
      .select({ q: sql<string>`sum(${usageRecords.quantity})` })
      .from(usageRecords)
      .where(
        and(
          eq(usageRecords.organizationId, org),
          gte(usageRecords.usageDate, daysAgo(5)),
          lte(usageRecords.usageDate, daysAgo(3)),
          eq(usageRecords.resourceType, "persistent-ssd"),
        ),
      );
    expect(total(res.body.items)).toBeCloseTo(Number(stored?.q), 3);
  });

  it("refuses a bad interval or date with 400 naming the field", async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ interval: "weekly" }, /^query\.interval: must be daily or monthly/],
      [{ start_date: "2025-1-1" }, /^query\.start_date:/],
      [{ end_date: "2025-02-29" }, /^query\.end_date:/],
      [{ start_date: "0000-01-01" }, /^query\.start_date:/],
      [{ start_date: "2025-03-02", end_date: "2025-03-01" }, /^query\.start_date: must not be after end_date/],
      [{ start_date: "2999-01-01" }, /^query\.start_date: must not be after end_date/],
      // A year and a day is the longest chart: its answer holds every day's points at once.
      [{ start_date: "2023-01-01", end_date: "2024-01-02" }, /^query\.start_date: the period must be at most 366 days, end_date included \(it is 367\)/],
      [{ start_date: "0001-01-01", end_date: "9999-12-31" }, /^query\.start_date: the period must be at most 366 days/],
    ];
    for (const [query, message] of cases) {
      const res = await usage(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
  });

  it("answers a monthly chart of up to five years (a point a month), and refuses a longer one or a daily chart of two", async () => {
    const twoYears = await usage({ start_date: "2023-01-01", end_date: "2024-12-31", interval: "monthly" });
    expect(twoYears.status, JSON.stringify(twoYears.body)).toBe(200);
    const longer = await usage({ start_date: "2019-01-01", end_date: "2024-12-31", interval: "monthly" });
    expect({ status: longer.status, message: longer.body.message }).toEqual({ status: 400, message: "query.start_date: the period must be at most 1830 days, end_date included (it is 2192)" });
    const daily = await usage({ start_date: "2023-01-01", end_date: "2024-12-31" });
    expect({ status: daily.status, message: daily.body.message }).toEqual({ status: 400, message: "query.start_date: the period must be at most 366 days, end_date included (it is 731)" });
  });

  it("answers a period of exactly 366 days, a leap year's", async () => {
    const res = await usage({ start_date: "2024-01-01", end_date: "2024-12-31", interval: "monthly" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it("refuses a non-member with 403 as the error status object", async () => {
    const res = await usage({}, "outsider");
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 7, message: expect.stringMatching(/not a member/), details: [] });
  });

  it("answers an unsigned call with 401 as the error status object", async () => {
    const res = await t.gateway.app.request(`http://gateway.test/v1/organizations/${org}/usage`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 16, details: [] });
  });
});

describe("GET /organizations/{organization_id}/usage/export", () => {
  const path = () => opPath("getUsageExport", { organization_id: org });
  const all = () => ({
    projects: Object.values(ids).join(","),
    resource_types: "h100-80gb-sxm-ib.8x,persistent-ssd",
    regions: "us-east1,us-west1",
    start_date: daysAgo(29),
    end_date: today(),
  });

  /** Resources of these types with usage in the export's window (ids differ per install, so none is named here). */
  async function resourceIds(resourceTypes: string[]): Promise<string[]> {
    const rows = await t.gateway.store.db
      .selectDistinct({ id: usageRecords.resourceId })
      .from(usageRecords)
      .where(
        and(
          eq(usageRecords.organizationId, org),
          inArray(usageRecords.resourceType, resourceTypes),
          inArray(usageRecords.region, all().regions.split(",")),
          gte(usageRecords.usageDate, all().start_date),
        ),
      )
      .orderBy(usageRecords.resourceId);
    return rows.map((r) => r.id);
  }

  it("streams resource-level usage as CSV with the reference's columns", async () => {
    const resources = await resourceIds(["h100-80gb-sxm-ib.8x", "persistent-ssd"]);
    const res = await t.call("auditor", "GET", path(), { query: { ...all(), resources: resources.join(",") } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="usage-.+\.csv"$/);
    const [header, ...rows] = Papa.parse<string[]>((await res.text()).trim()).data;
    expect(header).toEqual([...USAGE_EXPORT_COLUMNS]);
    // 6 projects × 2 products × 2 regions × 30 days.
    expect(rows).toHaveLength(6 * 2 * 2 * 30);
    expect(new Set(rows.map((r) => r[5]))).toEqual(new Set(["h100-80gb-sxm-ib.8x", "persistent-ssd"]));
    expect(new Set(rows.map((r) => r[3]))).toEqual(new Set(["us-east1", "us-west1"]));
    expect(rows.every((r) => resources.includes(r[4] ?? ""))).toBe(true);
  });

  it("keeps to the resources named", async () => {
    const [one] = await resourceIds(["persistent-ssd"]);
    const res = await t.call("owner", "GET", path(), {
      query: [...Object.entries({ ...all(), projects: Object.values(ids).join(",") }), ["resources", one!]],
    });
    const rows = Papa.parse<string[]>((await res.text()).trim()).data.slice(1);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThanOrEqual(30);
    expect(new Set(rows.map((r) => r[4]))).toEqual(new Set([one]));
  });

  it("requires every parameter the reference requires", async () => {
    const full = { ...all(), resources: "x" };
    for (const name of Object.keys(full)) {
      const query = Object.fromEntries(Object.entries(full).filter(([k]) => k !== name));
      const res = await t.json<{ message: string }>("owner", "GET", path(), { query });
      expect(res.status, name).toBe(400);
      expect(res.body.message).toContain(`query.${name}: is required`);
    }
    const reversed = await t.json<{ message: string }>("owner", "GET", path(), { query: { ...full, start_date: today(), end_date: daysAgo(1) } });
    expect(reversed.status).toBe(400);
  });

  it("refuses non-members", async () => {
    expect((await t.call("outsider", "GET", path(), { query: { ...all(), resources: "x" } })).status).toBe(403);
  });
});

describe("GET /organizations/{organization_id}/usage/options", () => {
  it("lists the values of every filter and the span of the data", async () => {
    const res = await t.opJson<Record<string, unknown>>("auditor", "getUsageOptions", { params: { organization_id: org } });
    expect(res.status).toBe(200);
    expect(new Set(res.body.projects as string[])).toEqual(new Set(Object.values(ids)));
    expect(res.body.resource_types).toHaveLength(6);
    expect(res.body.product_lines).toHaveLength(6);
    expect(res.body.regions).toHaveLength(5);
    expect(res.body.start_date).toBe(daysAgo(179));
    expect(res.body.end_date).toBe(today());
    expect((await t.opJson("outsider", "getUsageOptions", { params: { organization_id: org } })).status).toBe(403);
    // No resources unless asked for.
    expect(res.body).not.toHaveProperty("resources");
  });

  it("narrows to a selection and names its resources on request; an export of them holds every row of the selection", async () => {
    const selection: Array<[string, string]> = [
      ["resource_types", "persistent-ssd"],
      ["regions", "us-east1"],
      ["start_date", daysAgo(6)],
      ["end_date", today()],
    ];
    const res = await t.json<{ projects: string[]; resource_types: string[]; regions: string[]; resources: string[] }>("auditor", "GET", opPath("getUsageOptions", { organization_id: org }), {
      query: [...selection, ["with_resources", "true"]],
    });
    expect(res.status).toBe(200);
    expect(res.body.resource_types).toEqual(["persistent-ssd"]);
    expect(res.body.regions).toEqual(["us-east1"]);
    const expected = await t.gateway.store.db
      .selectDistinct({ id: usageRecords.resourceId })
      .from(usageRecords)
      .where(
        and(
          eq(usageRecords.organizationId, org),
          eq(usageRecords.resourceType, "persistent-ssd"),
          eq(usageRecords.region, "us-east1"),
          gte(usageRecords.usageDate, daysAgo(6)),
          lte(usageRecords.usageDate, today()),
        ),
      );
    expect(expected.length).toBeGreaterThan(0);
    expect(new Set(res.body.resources)).toEqual(new Set(expected.map((r) => r.id)));

    const csv = await t.call("auditor", "GET", opPath("getUsageExport", { organization_id: org }), {
      query: {
        projects: res.body.projects.join(","),
        resource_types: res.body.resource_types.join(","),
        regions: res.body.regions.join(","),
        resources: res.body.resources.join(","),
        start_date: daysAgo(6),
        end_date: today(),
      },
    });
    expect(csv.status).toBe(200);
    const rows = Papa.parse<Record<string, string>>((await csv.text()).trim(), { header: true }).data;
    const [count] = await t.gateway.store.db
      .select({ n: sql<number>`count(*)::int` })
      .from(usageRecords)
      .where(
        and(
          eq(usageRecords.organizationId, org),
          eq(usageRecords.resourceType, "persistent-ssd"),
          eq(usageRecords.region, "us-east1"),
          gte(usageRecords.usageDate, daysAgo(6)),
          lte(usageRecords.usageDate, today()),
        ),
      );
    expect(rows).toHaveLength(count!.n);
    expect(new Set(rows.map((r) => r.resource_type))).toEqual(new Set(["persistent-ssd"]));
  });

  it("refuses a bad selection with a 400 naming the field", async () => {
    const res = await t.json<{ message: string }>("auditor", "GET", opPath("getUsageOptions", { organization_id: org }), { query: { with_resources: "maybe" } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("with_resources");
  });

  it("lists a selection's resources only over a range, as the export takes it", async () => {
    const path = opPath("getUsageOptions", { organization_id: org });
    const none = await t.json<{ message: string }>("auditor", "GET", path, { query: { with_resources: "true" } });
    expect(none.status).toBe(400);
    expect(none.body.message).toMatch(/start_date.*required with with_resources=true/);
    expect(none.body.message).toMatch(/end_date.*required with with_resources=true/);
    const half = await t.json<{ message: string }>("auditor", "GET", path, { query: { with_resources: "true", start_date: daysAgo(6) } });
    expect(half.status).toBe(400);
    expect(half.body.message).toMatch(/end_date.*required/);
    expect(half.body.message).not.toMatch(/start_date/);
    // Without with_resources, the options of every date stay a plain GET.
    expect((await t.json("auditor", "GET", path, { query: { with_resources: "false" } })).status).toBe(200);
  });
});
