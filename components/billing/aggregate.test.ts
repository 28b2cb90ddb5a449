import { describe, expect, it } from "vitest";
import { productLinesOf, summarizeCosts, type CostDatum } from "./aggregate";

const row = (over: Partial<CostDatum>): CostDatum => ({
  billable_metric: "gpu-hours",
  cost: 0.1,
  date: "2026-03-01",
  project_id: "p1",
  quantity: 1,
  region: "us-east1",
  resource_type: "h100-80gb-sxm-ib.8x",
  unit_price: 0.1,
  ...over,
});

const none = { projects: [], resource_types: [], regions: [] };
const answer = (data: CostDatum[]) => ({ data, last_updated: "2026-03-02T10:00:00Z" });
const march = { start_date: "2026-03-01", end_date: "2026-03-31" };

describe("summarizeCosts", () => {
  it("adds cents, not floats: ten times 0.1 is exactly 1.00", () => {
    const data = Array.from({ length: 10 }, () => row({}));
    expect(summarizeCosts(answer(data), none, march).totalCents).toBe(100);
    // The float sum drifts; the cents do not.
    expect(data.reduce((s, d) => s + d.cost, 0)).not.toBe(1);
  });

  it("totals per project and product line, largest first, with one unit per group, and cents per day in the projects' order", () => {
    const data = [
      row({ project_id: "a", cost: 1.005 }),
      row({ project_id: "b", cost: 2.5, resource_type: "persistent-ssd", billable_metric: "gib-months", quantity: 10 }),
      row({ project_id: "a", cost: 0.3, date: "2026-03-02" }),
      row({ project_id: "a", cost: 0.2, date: "2026-03-02", resource_type: "persistent-ssd", billable_metric: "gib-months", quantity: 2 }),
    ];
    const s = summarizeCosts(answer(data), none, march);
    expect(s.byProject.map((t) => [t.key, t.cents])).toEqual([
      ["b", 250],
      ["a", 151],
    ]);
    expect(s.byProduct[0]).toMatchObject({ key: "persistent-ssd", cents: 270, quantity: 12, metric: "gib-months" });
    expect(s.days).toEqual([
      { date: "2026-03-01", cents: [250, 101] },
      { date: "2026-03-02", cents: [0, 50] },
    ]);
    expect(s).toMatchObject({ rows: 4, totalCents: 401, lastUpdated: "2026-03-02T10:00:00Z" });
    // The range asked for, days without spend included: the page's rows are its days, not the URL's.
    expect(s.range).toEqual(march);
  });

  it("groups with more than one unit carry no quantity", () => {
    const s = summarizeCosts(answer([row({ project_id: "a" }), row({ project_id: "a", billable_metric: "gib-months" })]), none, march);
    expect(s.byProject[0]).toEqual({ key: "a", cents: 20 });
  });

  it("keeps the rows every non-empty filter lists, and lists every value of the unfiltered rows", () => {
    const data = [row({ project_id: "a" }), row({ project_id: "b", region: "eu-north1", cost: 0.5 })];
    expect(summarizeCosts(answer(data), none, march).rows).toBe(2);
    const onlyB = summarizeCosts(answer(data), { ...none, projects: ["b"] }, march);
    expect(onlyB.byProject.map((t) => t.key)).toEqual(["b"]);
    expect(onlyB).toMatchObject({ rows: 1, totalCents: 50 });
    expect(onlyB.values).toEqual({ project_id: ["a", "b"], resource_type: ["h100-80gb-sxm-ib.8x"], region: ["eu-north1", "us-east1"] });
    const usEast = summarizeCosts(answer(data), { ...none, regions: ["us-east1"] }, march);
    expect(usEast.byProject.map((t) => t.key)).toEqual(["a"]);
    const nothing = summarizeCosts(answer(data), { ...none, resource_types: ["persistent-ssd"] }, march);
    expect(nothing).toMatchObject({ rows: 0, totalCents: 0, byProject: [], days: [] });
  });

  it("is plain JSON, whatever the ids are called", () => {
    const s = summarizeCosts(answer([row({ project_id: "__proto__" }), row({ project_id: "toString", date: "2026-03-02" })]), none, march);
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
    expect(s.days.map((d) => d.cents)).toEqual([
      [10, 0],
      [0, 10],
    ]);
  });
});

describe("productLinesOf", () => {
  it("maps resource types to their product lines", () => {
    expect(productLinesOf(["h100-80gb-sxm-ib.8x", "persistent-ssd"], ["a100", "h100", "h200", "persistent-ssd"])).toEqual(["h100", "persistent-ssd"]);
  });
});
