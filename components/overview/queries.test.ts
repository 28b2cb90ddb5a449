import { describe, expect, it } from "vitest";
import { dailySpend } from "./queries";

const row = (date: string, cost: number) => ({ billable_metric: "gpu-hours", cost, date, project_id: "p", quantity: 1, region: "r", resource_type: "t", unit_price: cost });

describe("dailySpend", () => {
  it("sums each day's rows in integer cents, days in order", () => {
    const answer = { last_updated: "2026-11-22T00:00:00Z", data: [row("2026-11-02", 0.1), row("2026-11-01", 0.2), row("2026-11-02", 0.2), row("2026-11-01", 10.01)] };
    // 0.1 + 0.2 in floats is 0.30000000000000004; in cents it is 30.
    expect(dailySpend(answer)).toEqual({ days: [{ date: "2026-11-01", cents: 1021 }, { date: "2026-11-02", cents: 30 }], totalCents: 1051 });
  });

  it("has no days and a zero total for no rows", () => {
    expect(dailySpend({ last_updated: "2026-11-22T00:00:00Z", data: [] })).toEqual({ days: [], totalCents: 0 });
  });
});
