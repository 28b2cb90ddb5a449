type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/**
 * Standard output, a batch per turn of the event loop: under load one write carries
 * the lines of many requests instead of one system call each. Whatever is pending is
 * written before the process exits.
 */
let stdoutWriter: ((line: string) => void) | undefined;

function batchedStdout(line: string): void {
  stdoutWriter ??= makeBatchedStdout();
  stdoutWriter(line);
}

function makeBatchedStdout(): (line: string) => void {
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.join("");
    pending = [];
    process.stdout.write(text);
  };
  process.once("exit", flush);
  return (line) => {
    if (pending.length === 0) setImmediate(flush);
    pending.push(line + "\n");
  };
}

/** One JSON object per line (stdout by default). Callers never pass secrets or request bodies. */
export function createLogger(level: Level | "silent" = "info", write: (line: string) => void = batchedStdout): Logger {
  const min = ORDER[level];
  const log = (lvl: Level) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    // The fields' own JSON is spliced in after the fixed keys: no merged copy per line.
    const head = `{"time":"${new Date().toISOString()}","level":"${lvl}","msg":${JSON.stringify(msg)}`;
    const rest = fields ? JSON.stringify(fields) : "{}";
    write(rest === "{}" ? `${head}}` : `${head},${rest.slice(1)}`);
  };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}
