import { describe, expect, it } from "vitest";
import type { UsageItem } from "@/lib/query/usage";
import { periodLabel, quantityOf, summarizeUsage } from "./aggregate";

const item = (over: Partial<UsageItem>): UsageItem => ({
  billable_metric: "gpu-hours",
  date: "2026-03-01",
  project_id: "p1",
  quantity: 1,
  region: "us-east1",
  reservation_id: "",
  resource_type: "h100-80gb-sxm-ib.8x",
  ...over,
});

describe("the usage page's summary", () => {
  const items = [
    item({ date: "2026-03-02", quantity: 4 }),
    item({ date: "2026-03-01", quantity: 2, reservation_id: "r1" }),
    item({ date: "2026-03-01", quantity: 3, resource_type: "l40s-48gb.1x", project_id: "p2" }),
    item({ date: "2026-03-01", quantity: 10, billable_metric: "gib-months", resource_type: "persistent-ssd" }),
    item({ date: "2026-03-02", quantity: 1, billable_metric: "gb", resource_type: "network-egress", region: "eu-west1" }),
  ];
  const summary = summarizeUsage({ items }, "daily");

  it("lists the GPU-hours first, then the other metrics in order", () => {
    expect(summary.metrics).toEqual(["gpu-hours", "gb", "gib-months"]);
  });

  it("sums each metric per period and resource type, periods in order, types largest first", () => {
    const gpu = summary.periods["gpu-hours"]!;
    expect(gpu.types).toEqual(["h100-80gb-sxm-ib.8x", "l40s-48gb.1x"]);
    expect(gpu.rows.map((r) => [r.period, r.total, quantityOf(r, "h100-80gb-sxm-ib.8x"), quantityOf(r, "l40s-48gb.1x")])).toEqual([
      ["2026-03-01", 5, 2, 3],
      ["2026-03-02", 4, 4, 0],
    ]);
    expect(summary.periods["gib-months"]!.rows).toEqual([{ period: "2026-03-01", total: 10, byType: { "persistent-ssd": 10 } }]);
  });

  it("totals each project, resource type and metric over the range, with the quantity used under a reservation", () => {
    expect(summary.totals.map((t) => [t.project_id, t.resource_type, t.metric, t.quantity, t.reserved])).toEqual([
      ["p1", "persistent-ssd", "gib-months", 10, 0],
      ["p1", "h100-80gb-sxm-ib.8x", "gpu-hours", 6, 2],
      ["p1", "network-egress", "gb", 1, 0],
      ["p2", "l40s-48gb.1x", "gpu-hours", 3, 0],
    ]);
  });

  it("is plain JSON, as the server sends it with the page", () => {
    expect(JSON.parse(JSON.stringify(summary))).toEqual(summary);
  });

  it("reads a resource type named like an object's own properties as any other", () => {
    const odd = summarizeUsage({ items: [item({ resource_type: "__proto__", quantity: 7 }), item({ resource_type: "toString", quantity: 1, date: "2026-03-02" })] }, "daily");
    const [first, second] = odd.periods["gpu-hours"]!.rows;
    expect(quantityOf(first!, "__proto__")).toBe(7);
    expect(quantityOf(first!, "toString")).toBe(0);
    expect(quantityOf(second!, "toString")).toBe(1);
    expect(quantityOf(second!, "constructor")).toBe(0);
    expect(Object.getPrototypeOf(first!.byType)).toBe(Object.prototype);
  });

  it("has no metric for no usage (the page's empty state)", () => {
    expect(summarizeUsage({ items: [] }, "monthly")).toEqual({ interval: "monthly", metrics: [], periods: {}, totals: [] });
  });
});

describe("periodLabel", () => {
  it("names a monthly report's period by its month, a daily one's by its day", () => {
    expect(periodLabel("2026-10-01", "monthly")).toBe("2026-10");
    expect(periodLabel("2026-10-15", "daily")).toBe("2026-10-15");
  });
});
