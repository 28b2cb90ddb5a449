import { describe, expect, it } from "vitest";
import { centsByDayAndProject, filterCosts, productLinesOf, sumCents, totalsBy, type CostDatum } from "./aggregate";

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

describe("money in cents", () => {
  it("adds cents, not floats: ten times 0.1 is exactly 1.00", () => {
    const data = Array.from({ length: 10 }, () => row({}));
    expect(sumCents(data)).toBe(100);
    // The float sum drifts; the cents do not.
    expect(data.reduce((s, d) => s + d.cost, 0)).not.toBe(1);
  });

  it("totals per project and product line, largest first, with one unit per group", () => {
    const data = [
      row({ project_id: "a", cost: 1.005 }),
      row({ project_id: "b", cost: 2.5, resource_type: "persistent-ssd", billable_metric: "gib-months", quantity: 10 }),
      row({ project_id: "a", cost: 0.3, date: "2026-03-02" }),
    ];
    expect(totalsBy(data, "project_id").map((t) => [t.key, t.cents])).toEqual([
      ["b", 250],
      ["a", 131],
    ]);
    const products = totalsBy(data, "resource_type");
    expect(products[0]).toMatchObject({ key: "persistent-ssd", cents: 250, quantity: 10, metric: "gib-months" });
    expect(centsByDayAndProject(data).get("2026-03-01")?.get("a")).toBe(101);
  });

  it("keeps rows every non-empty filter lists", () => {
    const data = [row({ project_id: "a" }), row({ project_id: "b", region: "eu-north1" })];
    expect(filterCosts(data, { projects: [], resource_types: [], regions: [] })).toHaveLength(2);
    expect(filterCosts(data, { projects: ["b"], resource_types: [], regions: [] }).map((d) => d.project_id)).toEqual(["b"]);
    expect(filterCosts(data, { projects: [], resource_types: [], regions: ["us-east1"] }).map((d) => d.project_id)).toEqual(["a"]);
  });
});

describe("productLinesOf", () => {
  it("maps resource types to their product lines", () => {
    expect(productLinesOf(["h100-80gb-sxm-ib.8x", "persistent-ssd"], ["a100", "h100", "h200", "persistent-ssd"])).toEqual(["h100", "persistent-ssd"]);
  });
});
