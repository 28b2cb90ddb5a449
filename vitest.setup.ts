import { afterAll, vi } from "vitest";

/**
 * No log line ever carries a secret. Every test file records everything the gateway
 * and the console log while it runs (every gateway logger at debug level, whatever
 * level the test asked for, and all of the process's stdout and stderr), and every
 * secret the gateway made meanwhile (API-key secrets, S3 secrets, SCIM and registry
 * tokens: all come from `newSecret`). When the file's tests are done, any secret
 * found in the record, as made or re-encoded, fails the file.
 */
interface LogRecord {
  text: string[];
  secrets: Set<string>;
}

const RECORD_KEY = Symbol.for("stratus.test.logRecord");
type GlobalWithRecord = typeof globalThis & { [RECORD_KEY]?: LogRecord };

function logRecord(): LogRecord {
  const g = globalThis as GlobalWithRecord;
  g[RECORD_KEY] ??= { text: [], secrets: new Set() };
  return g[RECORD_KEY];
}

vi.mock("@/lib/gateway/crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@/lib/gateway/crypto")>();
  return {
    ...actual,
    newSecret: (bytes?: number) => {
      const secret = actual.newSecret(bytes);
      logRecord().secrets.add(secret);
      return secret;
    },
  };
});

vi.mock("@/lib/gateway/logger", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@/lib/gateway/logger")>();
  const createLogger: typeof actual.createLogger = (level, write) => {
    const everything = actual.createLogger("debug", (line) => logRecord().text.push(line));
    const asked = actual.createLogger(level, write);
    const both = (lvl: "debug" | "info" | "warn" | "error") => (msg: string, fields?: Record<string, unknown>) => {
      everything[lvl](msg, fields);
      asked[lvl](msg, fields);
    };
    return { debug: both("debug"), info: both("info"), warn: both("warn"), error: both("error") };
  };
  return { ...actual, createLogger };
});

for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    logRecord().text.push(typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) ? chunk.toString("utf8") : String(chunk));
    return write(chunk, ...rest);
  }) as typeof stream.write;
}

/** A secret as made, and as it would read after the usual re-encodings. */
function encodings(secret: string): string[] {
  const bytes = Buffer.from(secret, "base64url");
  return [secret, Buffer.from(secret).toString("base64"), bytes.toString("base64"), bytes.toString("hex"), encodeURIComponent(secret)];
}

afterAll(() => {
  const { text, secrets } = logRecord();
  const all = text.join("\n");
  const leaked = [...secrets].filter((secret) => encodings(secret).some((form) => all.includes(form)));
  text.length = 0;
  secrets.clear();
  if (leaked.length > 0) {
    const line = all.split("\n").find((l) => leaked.some((s) => encodings(s).some((form) => l.includes(form)))) ?? "";
    const redacted = leaked.reduce((l, s) => encodings(s).reduce((m, form) => m.split(form).join("<secret>"), l), line);
    throw new Error(`${leaked.length} secret(s) reached the log, e.g. in: ${redacted.slice(0, 500)}`);
  }
});
