/**
 * Stores the console's server closes as it stops (SIGTERM, SIGINT). `next start`'s own handler stops taking requests,
 * waits for those under way, then calls process.exit: the stores close there, after the last request and before the
 * exit. An embedded PGlite left open at exit is not shut down (no last checkpoint, its lock file left behind), and a
 * data dir abandoned mid-write may not open again. A close that hangs gives way after CLOSE_CAP_MS. A second
 * process.exit meanwhile returns (the first is under way): code after it runs on, as it would have had the exit not
 * been held.
 *
 * Installed by instrumentation.ts only, in the Next.js server: a SIGTERM listener keeps Node from ending the process
 * itself, so it must be where something (next start) calls process.exit after it. Elsewhere (tests, the command-line
 * tool) stores registered here are closed by whoever opened them, as before.
 */
const REGISTRY_KEY = Symbol.for("stratus.closeOnExit");
interface Registry {
  closers: Map<string, () => Promise<void>>;
  installed: boolean;
}
type GlobalWithRegistry = typeof globalThis & { [REGISTRY_KEY]?: Registry };
const registry = ((globalThis as GlobalWithRegistry)[REGISTRY_KEY] ??= { closers: new Map(), installed: false });

/** Each close's longest wait: a stop's whole grace (Docker's is 10 s) is shared with the requests finishing before. */
export const CLOSE_CAP_MS = 5_000;

/** Closes `close` as the server stops (once installed); a later registration under the same name replaces it. */
export function closeOnExit(name: string, close: () => Promise<void>): void {
  registry.closers.set(name, close);
}

/**
 * Closes everything registered, the last registered first (what was opened later may use what was opened before: the
 * held sign-outs are written through the store, which closes after them), one at a time, each at most `capMs`,
 * failures logged; what it closed, by name.
 */
export async function closeAll(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`), capMs = CLOSE_CAP_MS): Promise<string[]> {
  const closed: string[] = [];
  for (const [name, close] of [...registry.closers].reverse()) {
    registry.closers.delete(name);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const cap = new Promise<"cap">((resolve) => (timer = setTimeout(() => resolve("cap"), capMs)));
    try {
      const outcome = await Promise.race([close().then(() => "closed" as const), cap]);
      log(JSON.stringify({ level: outcome === "closed" ? "info" : "warn", msg: outcome === "closed" ? `${name} closed` : `${name} did not close in time`, component: "shutdown" }));
      if (outcome === "closed") closed.push(name);
    } catch (error) {
      log(JSON.stringify({ level: "warn", msg: `${name} did not close`, component: "shutdown", error: error instanceof Error ? error.message : String(error) }));
    } finally {
      clearTimeout(timer);
    }
  }
  return closed;
}

/**
 * On SIGTERM or SIGINT, the next process.exit (next start's, once its requests are done) first closes every store
 * registered. Once per process.
 */
export function installCloseOnExit(): void {
  if (registry.installed) return;
  registry.installed = true;
  const holdExit = () => {
    const exit = process.exit.bind(process);
    let exiting = false;
    process.exit = ((code?: number | string | null) => {
      if (exiting) return undefined as never;
      exiting = true;
      void closeAll().finally(() => exit(code ?? undefined));
      return undefined as never;
    }) as typeof process.exit;
  };
  process.once("SIGTERM", holdExit);
  process.once("SIGINT", holdExit);
}
