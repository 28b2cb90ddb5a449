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
  /** The page's main thread in the run's trace (mainThreadTime). */
  mainThread?: MainThreadTime;
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


/** A trace event: the fields mainThreadTime reads. */
export interface TraceEventLike {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string; data?: { isLoadingMainFrame?: boolean; documentLoaderURL?: string } };
}

export interface MainThreadTime {
  /** The tasks' length, start to end (what Lighthouse's simulation scales by 4 and counts). */
  wallMs: number;
  /** How much of it the thread ran on a core (the tasks' thread time). */
  cpuMs: number;
}

/**
 * The tasks of the page's main thread from its navigation on, their length and their thread time.
 * A task lasts while its thread waits, too: for a core taken by another process (on a host where the
 * browser, Lighthouse and the server under test share the cores), or on a synchronous call to the
 * browser process (a font lookup). Lighthouse counts the length; the thread time is the page's own work.
 */
export function mainThreadTime(events: readonly TraceEventLike[]): MainThreadTime | undefined {
  const navigation = events.find(
    (e) => e.name === "navigationStart" && e.args?.data?.isLoadingMainFrame === true && e.args.data.documentLoaderURL?.startsWith("http"),
  );
  if (!navigation) return undefined;
  const thread = events.find((e) => e.name === "thread_name" && e.pid === navigation.pid && e.args?.name === "CrRendererMain");
  if (!thread) return undefined;
  let wall = 0;
  let cpu = 0;
  for (const e of events) {
    if (e.name !== "RunTask" || e.ph !== "X" || e.pid !== navigation.pid || e.tid !== thread.tid || e.ts < navigation.ts) continue;
    const length = e.dur ?? 0;
    wall += length;
    cpu += Math.min(e.tdur ?? length, length);
  }
  return { wallMs: wall / 1000, cpuMs: cpu / 1000 };
}
