import { describe, expect, it } from "vitest";
import { niceTicks, thinnedLabels, timeTicks } from "./static-chart";

describe("niceTicks", () => {
  it("counts from 0 in round steps up to at least the largest value, as recharts does", () => {
    expect(niceTicks(87)).toEqual([0, 25, 50, 75, 100]);
    expect(niceTicks(3350)).toEqual([0, 850, 1700, 2550, 3400]);
    expect(niceTicks(0.37)).toEqual([0, 0.095, 0.19, 0.285, 0.38]);
    expect(niceTicks(0)).toEqual([0, 1]);
  });

  it("keeps whole numbers when asked to", () => {
    expect(niceTicks(28, 5, true)).toEqual([0, 7, 14, 21, 28]);
    expect(niceTicks(3, 5, true)).toEqual([0, 1, 2, 3, 4]);
  });
});

describe("thinnedLabels", () => {
  it("keeps every label that fits and always the last one", () => {
    const days = Array.from({ length: 30 }, (_, i) => `2026-03-${String(i + 1).padStart(2, "0")}`);
    expect(thinnedLabels(days, 200, 16)).toHaveLength(30);
    const shown = thinnedLabels(days, 10, 16);
    expect(shown.at(-1)).toBe(29);
    expect(shown.length).toBeLessThan(5);
  });
});

describe("timeTicks", () => {
  it("puts ticks on whole UTC days over a week", () => {
    const first = Date.parse("2026-03-01T10:00:00Z");
    const ticks = timeTicks(first, first + 7 * 86_400_000, 5);
    expect(ticks.length).toBeLessThanOrEqual(5);
    expect(ticks.every((t) => new Date(t).toISOString().endsWith("T00:00:00.000Z"))).toBe(true);
  });
});
