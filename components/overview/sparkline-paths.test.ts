import { describe, expect, it } from "vitest";
import { sparklinePaths } from "./sparkline-paths";

const points = (line: string) => [...line.matchAll(/[ML](-?[\d.]+) (-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);

describe("sparklinePaths", () => {
  it("puts the largest value at the top, zero at the bottom, days evenly across", () => {
    const { line, area } = sparklinePaths([0, 5, 10, 2.5], 90, 40);
    expect(points(line)).toEqual([
      [0, 40],
      [30, 20],
      [60, 0],
      [90, 30],
    ]);
    expect(area).toBe(`${line} L90 40 L0 40 Z`);
  });

  it("gives each day a column centred on its point, the whole width covered once", () => {
    const { columns } = sparklinePaths([1, 2, 3], 100, 10);
    expect(columns).toEqual([
      { x: 0, width: 25 },
      { x: 25, width: 50 },
      { x: 75, width: 25 },
    ]);
    expect(columns.reduce((n, c) => n + c.width, 0)).toBe(100);
  });

  it("draws one day as a flat line across, and nothing for no days", () => {
    expect(points(sparklinePaths([7], 100, 40).line)).toEqual([
      [0, 0],
      [100, 0],
    ]);
    expect(sparklinePaths([7], 100, 40).columns).toEqual([{ x: 0, width: 100 }]);
    expect(sparklinePaths([], 100, 40)).toEqual({ line: "", area: "", columns: [] });
  });

  it("keeps all-zero and negative days on the baseline instead of dividing by zero", () => {
    expect(points(sparklinePaths([0, 0, 0], 20, 40).line).map(([, y]) => y)).toEqual([40, 40, 40]);
    expect(points(sparklinePaths([-3, 6], 20, 40).line)).toEqual([
      [0, 40],
      [20, 0],
    ]);
  });
});
