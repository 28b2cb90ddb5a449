/**
 * A throwaway PostgreSQL cluster on loopback for a benchmark, as scripts/with-postgres.sh
 * starts one for the tests: Debian's server binaries, a fresh data dir, trust auth for
 * the `stratus` user, fsync off; run as the `postgres` user when this process is root
 * (the server refuses root). Removed again by stop().
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./children";

export interface BenchPostgres {
  url: string;
  /** The server's version, e.g. "15.18". */
  version: string;
  /** Path of the psql client of the same installation. */
  psql: string;
  stop(): Promise<void>;
}

function serverBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(path.join(root, v, "bin", "initdb"))) : [];
  const newest = versions.sort((a, b) => Number(a) - Number(b)).at(-1);
  if (!newest) throw new Error("PostgreSQL server binaries not found (apt-get install -y postgresql)");
  return path.join(root, newest, "bin");
}

/** `settings`: more server settings (name → value), e.g. a larger shared_buffers for a big data set. */
export async function startPostgres(settings: Record<string, string> = {}): Promise<BenchPostgres> {
  const bin = serverBin();
  const dir = mkdtempSync(path.join(tmpdir(), "stratus-bench-pg-"));
  const asRoot = process.getuid?.() === 0;
  const run = (file: string, args: string[]) => {
    const [command, ...rest] = asRoot ? ["runuser", "-u", "postgres", "--", path.join(bin, file), ...args] : [path.join(bin, file), ...args];
    execFileSync(command!, rest, { stdio: ["ignore", "ignore", "inherit"] });
  };
  if (asRoot) {
    try {
      execFileSync("id", ["postgres"], { stdio: "ignore" });
    } catch {
      execFileSync("useradd", ["--system", "--no-create-home", "postgres"]);
    }
    chownSync(dir, Number(execFileSync("id", ["-u", "postgres"])), Number(execFileSync("id", ["-g", "postgres"])));
  }
  const data = path.join(dir, "data");
  const port = await freePort();
  const stop = async () => {
    try {
      run("pg_ctl", ["-D", data, "-m", "immediate", "stop"]);
    } catch {
      // not running
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    run("initdb", ["-D", data, "-A", "trust", "-U", "stratus", "--no-sync"]);
    run("pg_ctl", ["-D", data, "-w", "-l", path.join(dir, "server.log"), "-o", `-k ${dir} -p ${port} -c listen_addresses=127.0.0.1 -c fsync=off${Object.entries(settings)
      .map(([name, value]) => ` -c ${name}=${value}`)
      .join("")}`, "start"]);
  } catch (error) {
    await stop();
    throw error;
  }
  const version = execFileSync(path.join(bin, "postgres"), ["--version"]).toString().match(/\d+(?:\.\d+)+/)?.[0] ?? "?";
  return { url: `postgres://stratus@127.0.0.1:${port}/postgres`, version, psql: path.join(bin, "psql"), stop };
}
