/** One Lighthouse result of a page, as the bench reports it. */
export interface Score {
  name: string;
  /** Over several runs: the lowest and highest performance scores; the rest is the median run's. */
  spread?: [number, number];
  performance: number;
  accessibility: number;
  metrics: string;
  /** Total Blocking Time, ms (Lighthouse's numeric value). */
  tbtMs: number;
  benchmarkIndex: number;
}

/** Per page, the run of median performance score, with the range the runs spanned. */
export function medianRuns(runs: Score[][]): Score[] {
  const first = runs[0] ?? [];
  return first.map((_, i) => {
    const ofPage = runs.map((run) => run[i]).filter((x): x is Score => x !== undefined).sort((a, b) => a.performance - b.performance);
    const median = ofPage[Math.floor((ofPage.length - 1) / 2)]!;
    return ofPage.length > 1 ? { ...median, spread: [ofPage[0]!.performance, ofPage[ofPage.length - 1]!.performance] } : median;
  });
}

