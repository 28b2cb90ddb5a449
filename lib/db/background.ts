import { AsyncLocalStorage } from "node:async_hooks";
import type { PGlite } from "@electric-sql/pglite";

/**
 * Background work on an embedded store that gives way to requests statement by statement: the
 * demo organization, written on a fresh start in the same thread as the pages (PGlite runs each
 * statement synchronously, up to a tenth of a second). Pauses between the work's steps alone left
 * a fresh start's first page a third slower than without the demo (`npm run bench`, first page
 * after a fresh start): a request arriving mid-step had the step's remaining statements run
 * between its own turns.
 *
 * The work's statements are told from the requests' by the async context: a statement made
 * inside `inBackground` first awaits the work's gate; any other goes at once.
 */
export type Gate = () => Promise<void> | undefined;

let gates: AsyncLocalStorage<Gate> | undefined;
let running = 0;

/** Runs `work` as background work: each statement it makes through a gated client awaits `gate()` first (when it gives a promise). */
export async function inBackground<T>(gate: Gate, work: () => Promise<T>): Promise<T> {
  const storage = (gates ??= new AsyncLocalStorage<Gate>());
  running++;
  try {
    return await storage.run(gate, work);
  } finally {
    // An async context in use costs every promise of the process a hook: turned off with the last work.
    if (--running === 0) {
      storage.disable();
      gates = undefined;
    }
  }
}

/** The pause the current statement takes first: undefined outside background work, or when its gate lets it go on. */
export function backgroundPause(): Promise<void> | undefined {
  return gates?.getStore()?.();
}

type Run = (text: string, ...rest: unknown[]) => Promise<unknown>;

let beforeStatement: (() => void) | undefined;

/**
 * What runs before each statement of a gated client, in this thread: the standalone gateway sends
 * the answers waiting for the end of the turn (lib/gateway/coalesced-response.ts), which would
 * otherwise wait for the statement too (PGlite runs it synchronously, up to a tenth of a second).
 */
export function runBeforeEachStatement(run: (() => void) | undefined): void {
  beforeStatement = run;
}

function gated(run: Run): Run {
  return (text, ...rest) => {
    beforeStatement?.();
    const pause = backgroundPause();
    return pause ? pause.then(() => run(text, ...rest)) : run(text, ...rest);
  };
}

/** Makes a PGlite client's statements (in transactions too) wait for the gate of the background work making them. */
export function gatePglite(client: PGlite): void {
  client.query = gated(client.query.bind(client) as Run) as PGlite["query"];
  client.exec = gated(client.exec.bind(client) as Run) as PGlite["exec"];
  const transaction = client.transaction.bind(client);
  client.transaction = ((fn: Parameters<PGlite["transaction"]>[0]) =>
    transaction((tx) => {
      tx.query = gated(tx.query.bind(tx) as Run) as typeof tx.query;
      tx.exec = gated(tx.exec.bind(tx) as Run) as typeof tx.exec;
      return fn(tx);
    })) as PGlite["transaction"];
}
