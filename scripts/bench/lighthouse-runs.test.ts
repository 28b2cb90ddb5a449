import { describe, expect, it } from "vitest";
import { medianRuns, type Score } from "./lighthouse-runs";

const score = (name: string, performance: number): Score => ({ name, performance, accessibility: 100, metrics: `run ${performance}`, tbtMs: 100, benchmarkIndex: 1600 });

describe("medianRuns", () => {
  it("keeps, per page, the run of median performance and the range the runs spanned", () => {
    const runs = [
      [score("overview", 91), score("billing", 80)],
      [score("overview", 84), score("billing", 95)],
      [score("overview", 97), score("billing", 88)],
    ];
    expect(medianRuns(runs)).toEqual([
      { ...score("overview", 91), spread: [84, 97] },
      { ...score("billing", 88), spread: [80, 95] },
    ]);
  });

  it("takes the lower middle of an even number of runs, and a single run as it is", () => {
    expect(medianRuns([[score("a", 70)], [score("a", 90)]])).toEqual([{ ...score("a", 70), spread: [70, 90] }]);
    expect(medianRuns([[score("a", 70)]])).toEqual([score("a", 70)]);
  });
});
