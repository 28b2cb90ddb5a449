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
type Load = { answering: number; lastAnsweredAt: number; waiting: number };
type GlobalWithCount = typeof globalThis & { [COUNT_KEY]?: Load };

/** One count per process, whichever copy of this module (Next.js bundles several) counts or asks. */
function load(): Load {
  const g = globalThis as GlobalWithCount;
  return (g[COUNT_KEY] ??= { answering: 0, lastAnsweredAt: Number.NEGATIVE_INFINITY, waiting: 0 });
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
 * A request is waiting for the background work (a signed-in page asking the embedded gateway
 * while it still writes the demo organization): until `work` settles, the work goes at full speed.
 */
export function waitedFor<T>(work: Promise<T>): Promise<T> {
  const state = load();
  state.waiting++;
  const done = () => {
    state.waiting--;
  };
  work.then(done, done);
  return work;
}

/** Requests waiting for background work now (`waitedFor`). */
export function requestsWaiting(): number {
  return load().waiting;
}

/** How background work gives way to the requests being answered (see `pacer`). */
export interface Pacer {
  /** Between two steps of the work: a turn of the event loop, then the pause `statement` would take. */
  step(): Promise<void>;
  /** Before one statement of the work (lib/db/background.ts): undefined to go on at once, or the pause to take first. */
  statement(): Promise<void> | undefined;
}

/**
 * Pauses for background work. It goes on at once when the server is not busy, or when a request
 * waits for the work (it must not wait for itself); otherwise, while requests are answered and
 * for a moment after (BURST_GAP_MS), it waits until the server is idle or a request starts
 * waiting for it, at most MAX_PAUSE_MS. A pause cut short by MAX_PAUSE_MS (a request that stays
 * open: a long export, a stream) lets the work run unpaused for as long again, so that request
 * can slow the work down, not stop it. A fresh start's first page then shares the machine only
 * with the browser showing it (`npm run bench`, first page after a fresh start).
 */
export function pacer(): Pacer {
  let unpausedUntil = Number.NEGATIVE_INFINITY;
  const mayGoOn = () => !serverBusy() || requestsWaiting() > 0 || performance.now() < unpausedUntil;
  const pause = async () => {
    const until = performance.now() + MAX_PAUSE_MS;
    while (!mayGoOn()) {
      if (performance.now() >= until) {
        unpausedUntil = performance.now() + MAX_PAUSE_MS;
        return;
      }
      await new Promise<void>((resolve) => setTimeout(resolve, RECHECK_MS));
    }
  };
  const statement = () => (mayGoOn() ? undefined : pause());
  return {
    step: async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      await statement();
    },
    statement,
  };
}

/** How often paused background work looks again whether it may go on. */
const RECHECK_MS = 25;
/** The longest pause at a time: a request that stays open (a long export, a stream) cannot stop the work. */
const MAX_PAUSE_MS = 2_000;
