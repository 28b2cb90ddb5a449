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
type GlobalWithCount = typeof globalThis & { [COUNT_KEY]?: { answering: number } };

/** One count per process, whichever copy of this module (Next.js bundles several) counts or asks. */
function load(): { answering: number } {
  const g = globalThis as GlobalWithCount;
  return (g[COUNT_KEY] ??= { answering: 0 });
}

/** A request came in; it is answered when its response closes (sent, or the client went away). */
export function countRequest(response: { once(event: "close", listener: () => void): unknown }): void {
  const state = load();
  state.answering++;
  response.once("close", () => {
    state.answering--;
  });
}

/** Requests being answered now. */
export function requestsAnswering(): number {
  return load().answering;
}

/**
 * A pause for background work, taken between its steps: a turn of the event loop when no
 * request is being answered, else as long as the step just done took, so that the work takes at
 * most half of the thread while requests are answered. It never waits for the requests to end:
 * a request may itself be waiting for the work (a sign-in waits for the demo organization).
 */
export function pacer(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    const worked = performance.now() - since;
    await new Promise<void>((resolve) => (requestsAnswering() === 0 ? setImmediate(resolve) : setTimeout(resolve, Math.max(1, worked))));
    since = performance.now();
  };
}
