import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import path from "node:path";
export { freePort } from "../free-port";
import { fileURLToPath } from "node:url";

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));

/** Runs a TypeScript file of this folder in a new Node process with tsx. */
export function spawnTs(file: string, args: string[], options: { env?: Record<string, string>; stdio?: StdioOptions; nodeFlags?: string[] } = {}): ChildProcess {
  return spawn(process.execPath, [...(options.nodeFlags ?? []), "--import", "tsx", path.join(BENCH_DIR, file), ...args], {
    env: { ...process.env, ...options.env },
    stdio: options.stdio ?? ["ignore", "inherit", "inherit", "ipc"],
  });
}

/** Waits for the child's first IPC message (or its death). */
export function firstMessage<T>(child: ChildProcess, timeoutMs = 120_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no message from child ${child.pid} within ${timeoutMs} ms`)), timeoutMs);
    child.once("message", (message) => {
      clearTimeout(timer);
      resolve(message as T);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`child ${child.pid} exited (${code ?? signal}) before answering`));
    });
  });
}

/** Stops a child this process started and waits until it is gone. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await gone;
  clearTimeout(timer);
}

