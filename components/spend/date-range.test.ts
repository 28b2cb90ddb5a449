import { usageFilters, usageRangeLimit } from "@/components/usage/search-params";
import { describe, expect, it } from "vitest";
import { dateSchema } from "@/lib/contract/time";
import { daysBetween, eachDay, isIsoDate, monthEndForecastCents, resolveRange } from "./date-range";

const today = new Date("2026-03-15T18:30:00Z");

describe("resolveRange", () => {
  it("turns each preset into UTC days", () => {
    expect(resolveRange("mtd", null, null, today)).toEqual({ ok: true, range: { start_date: "2026-03-01", end_date: "2026-03-15" } });
    expect(resolveRange("last-month", null, null, today)).toEqual({ ok: true, range: { start_date: "2026-02-01", end_date: "2026-02-28" } });
    expect(resolveRange("30d", null, null, today)).toEqual({ ok: true, range: { start_date: "2026-02-14", end_date: "2026-03-15" } });
    expect(resolveRange("90d", null, null, today)).toEqual({ ok: true, range: { start_date: "2025-12-16", end_date: "2026-03-15" } });
  });

  it("crosses a year for last month in January", () => {
    expect(resolveRange("last-month", null, null, new Date("2026-01-03T00:00:00Z"))).toEqual({
      ok: true,
      range: { start_date: "2025-12-01", end_date: "2025-12-31" },
    });
  });

  it("takes a custom range as given and refuses bad ones with a reason", () => {
    expect(resolveRange("custom", "2026-01-01", "2026-01-31", today)).toEqual({ ok: true, range: { start_date: "2026-01-01", end_date: "2026-01-31" } });
    expect(resolveRange("custom", null, "2026-01-31", today)).toMatchObject({ ok: false, error: /both/ });
    expect(resolveRange("custom", "2026-02-30", "2026-03-01", today)).toMatchObject({ ok: false, error: /start date must be a valid date/ });
    expect(resolveRange("custom", "2026-03-02", "2026-03-01", today)).toMatchObject({ ok: false, error: /not be after/ });
    expect(resolveRange("custom", "2024-01-01", "2026-01-01", today)).toMatchObject({ ok: false, error: /at most 366 days/ });
  });

  it("holds a custom range to the chart's limit: the usage chart takes five years by month, a year by day", () => {
    const fiveYears = { range: "custom" as const, from: "2021-12-01", to: "2026-11-30", projects: [], resource_types: [], regions: [] };
    expect(usageFilters({ ...fiveYears, interval: "monthly" }, today)).toEqual({ ...omitRange(fiveYears), start_date: "2021-12-01", end_date: "2026-11-30", interval: "monthly" });
    expect(usageFilters({ ...fiveYears, interval: "daily" }, today)).toBeNull();
    expect(resolveRange("custom", fiveYears.from, fiveYears.to, today, usageRangeLimit("daily"))).toMatchObject({ ok: false, error: /366 days, or the monthly interval/ });
    // The gateway's own limit, 1,830 days: a day more is refused by month too.
    expect(resolveRange("custom", "2021-11-26", "2026-11-30", today, usageRangeLimit("monthly"))).toMatchObject({ ok: false, error: /five years \(1830 days\)/ });
    expect(resolveRange("custom", "2021-11-27", "2026-11-30", today, usageRangeLimit("monthly"))).toMatchObject({ ok: true });
  });
});

function omitRange<T extends { range: unknown; from: unknown; to: unknown }>({ range: _r, from: _f, to: _t, ...rest }: T) {
  return rest;
}

describe("days", () => {
  it("counts and lists both ends", () => {
    expect(daysBetween("2026-02-27", "2026-03-02")).toBe(4);
    expect(eachDay({ start_date: "2026-02-27", end_date: "2026-03-02" })).toEqual(["2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"]);
  });
});

describe("monthEndForecastCents", () => {
  it("spreads the month-to-date spend over the whole month", () => {
    expect(monthEndForecastCents(15_000, today)).toEqual({ forecastCents: 31_000, daysElapsed: 15, daysInMonth: 31 });
  });
});

describe("isIsoDate agrees with the contract's dateSchema", () => {
  it.each(["2024-02-29", "2023-02-29", "2023-02-30", "2023-13-01", "0000-12-31", "0001-01-01", "9999-12-31", "2024-1-01", "2024-01-01T00:00:00Z", "", "abcd-ef-gh", "2024-04-31"])("%s", (value) => {
    expect(isIsoDate(value)).toBe(dateSchema.safeParse(value).success);
  });
});
