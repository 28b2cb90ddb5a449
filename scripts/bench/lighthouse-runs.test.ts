import { describe, expect, it } from "vitest";
import { mainThreadTime, medianRuns, type Score, type TraceEventLike } from "./lighthouse-runs";

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

describe("mainThreadTime", () => {
  const PAGE = 7;
  const MAIN = 1;
  const navigation = (pid: number, ts: number, url: string): TraceEventLike => ({
    name: "navigationStart",
    ph: "R",
    pid,
    tid: MAIN,
    ts,
    args: { data: { isLoadingMainFrame: true, documentLoaderURL: url } },
  });
  const thread = (pid: number, tid: number, name: string): TraceEventLike => ({ name: "thread_name", ph: "M", pid, tid, ts: 0, args: { name } });
  const task = (ts: number, durMs: number, cpuMs: number | undefined, pid = PAGE, tid = MAIN): TraceEventLike => ({
    name: "RunTask",
    ph: "X",
    pid,
    tid,
    ts,
    dur: durMs * 1000,
    ...(cpuMs === undefined ? {} : { tdur: cpuMs * 1000 }),
  });

  it("sums the page's main-thread tasks from its navigation on: their length, and the part on a core", () => {
    const events = [
      thread(PAGE, MAIN, "CrRendererMain"),
      thread(PAGE, 9, "Compositor"),
      thread(3, MAIN, "CrRendererMain"),
      navigation(3, 500, "about:blank"),
      navigation(PAGE, 1_000, "http://127.0.0.1:3000/orgs/o/people"),
      task(900, 40, 40), // before the navigation
      task(2_000, 120, 7), // a layout waiting for a core
      task(200_000, 30, 28),
      task(300_000, 10, undefined), // no thread time recorded: counted as its length
      task(2_000, 500, 500, PAGE, 9), // another thread of the page
      task(2_000, 500, 500, 3, MAIN), // another renderer
      { ...task(400_000, 60, 60), name: "Layout" }, // not a task
    ];
    expect(mainThreadTime(events)).toEqual({ wallMs: 160, cpuMs: 45 });
  });

  it("never counts more thread time than a task lasted", () => {
    const events = [thread(PAGE, MAIN, "CrRendererMain"), navigation(PAGE, 0, "https://console.example/"), task(10, 20, 21)];
    expect(mainThreadTime(events)).toEqual({ wallMs: 20, cpuMs: 20 });
  });

  it("is unknown without the page's navigation or its main thread", () => {
    expect(mainThreadTime([thread(PAGE, MAIN, "CrRendererMain"), navigation(PAGE, 0, "about:blank"), task(10, 20, 5)])).toBeUndefined();
    expect(mainThreadTime([navigation(PAGE, 0, "http://127.0.0.1/"), task(10, 20, 5)])).toBeUndefined();
  });
});
