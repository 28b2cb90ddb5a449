/**
 * How busy this process's HTTP servers are, for background work that must give way to the
 * requests being answered: the demo organization written on a fresh start runs on the same
 * thread as the pages (PGlite runs its statements in-process), and a first page that waited
 * behind it took seconds (`npm run bench`, first page after a fresh start).
 *
 * Counted by the request guard (client-address.ts), which sees every request of every HTTP
 * server of the process before Next.js or the standalone gateway does.
 */

const COUNT_KEY = Symbol.for("stratus.requestsAnswering");
type Load = { answering: number; lastAnsweredAt: number };
type GlobalWithCount = typeof globalThis & { [COUNT_KEY]?: Load };

/** One count per process, whichever copy of this module (Next.js bundles several) counts or asks. */
function load(): Load {
  const g = globalThis as GlobalWithCount;
  return (g[COUNT_KEY] ??= { answering: 0, lastAnsweredAt: Number.NEGATIVE_INFINITY });
}

/**
 * Requests come in bursts: a page, then its scripts and styles a few milliseconds after it was
 * answered. The server counts as busy for this long after its last answer, so background work
 * does not take the gaps of a burst at full speed.
 */
const BURST_GAP_MS = 1000;

/** A request came in; it is answered when its response closes (sent, or the client went away). */
export function countRequest(response: { once(event: "close", listener: () => void): unknown }): void {
  const state = load();
  state.answering++;
  response.once("close", () => {
    state.answering--;
    state.lastAnsweredAt = performance.now();
  });
}

/** Requests being answered now. */
export function requestsAnswering(): number {
  return load().answering;
}

/** Answering requests now, or a burst of them may still be coming (BURST_GAP_MS). */
export function serverBusy(): boolean {
  const state = load();
  return state.answering > 0 || performance.now() - state.lastAnsweredAt < BURST_GAP_MS;
}

/**
 * A pause for background work, taken between its steps: a turn of the event loop when the server
 * is not busy, else four times as long as the step just done took, so that the work takes at most
 * a fifth of the thread while requests are answered. It never waits for the requests to end: a
 * request may itself be waiting for the work (a sign-in waits for the demo organization), which
 * then goes on at a fifth of its speed rather than not at all.
 */
export function pacer(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    const worked = performance.now() - since;
    await new Promise<void>((resolve) => (serverBusy() ? setTimeout(resolve, Math.max(1, worked * PAUSE_PER_WORK)) : setImmediate(resolve)));
    since = performance.now();
  };
}

/** The background work's share of the thread while requests are answered: 1 / (1 + PAUSE_PER_WORK). */
const PAUSE_PER_WORK = 4;
