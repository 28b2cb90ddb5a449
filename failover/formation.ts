import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";

/**
 * A pg_auto_failover formation on loopback, for the failover test: a monitor, a
 * primary and a synchronous secondary, each a `pg_autoctl` service in its own
 * process group (so one node can be killed whole, as when its machine dies).
 * Runs as the `postgres` OS user when this process is root, like
 * scripts/with-postgres.sh. Everything lives in one temporary dir.
 */

export interface NodeInfo {
  name: string;
  port: number;
  pgdata: string;
}

const PG_AUTOCTL = "/usr/bin/pg_autoctl";

function pgBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(path.join(root, v, "bin", "pg_ctl"))) : [];
  const version = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!version || !existsSync(PG_AUTOCTL)) {
    throw new Error("pg_auto_failover not found: apt-get install -y postgresql-15-auto-failover (bash .ci/run installs it)");
  }
  return path.join(root, version, "bin");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it is true, or throws `what` after `timeoutMs`. */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Runs one query as the superuser on a node; throws when the node does not answer. */
export async function query<T extends pg.QueryResultRow>(port: number, database: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database, connectionTimeoutMillis: 2_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    return (await client.query<T>(text, values)).rows;
  } finally {
    // Not awaited: ending a client whose connection failed can wait forever.
    client.end().catch(() => undefined);
  }
}

export class Formation {
  readonly dir = mkdtempSync(path.join(tmpdir(), "stratus-failover-"));
  readonly monitor: NodeInfo;
  readonly nodes: NodeInfo[];
  private readonly services = new Map<string, ChildProcess>();
  private readonly logs = new Map<string, string>();
  private readonly bin = pgBin();
  private readonly asPostgres = process.getuid?.() === 0;

  constructor(
    readonly basePort: number,
    readonly database = "stratus",
  ) {
    this.monitor = { name: "monitor", port: basePort, pgdata: path.join(this.dir, "monitor") };
    this.nodes = [1, 2].map((n) => ({ name: `node${n}`, port: basePort + n, pgdata: path.join(this.dir, `node${n}`) }));
    if (this.asPostgres) {
      try {
        execFileSync("id", ["postgres"], { stdio: "ignore" });
      } catch {
        execFileSync("useradd", ["--system", "--no-create-home", "postgres"]);
      }
      const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
      chownSync(this.dir, uid, -1);
    }
  }

  /** Multi-host URL of the formation's data nodes, as a client names them. */
  databaseUrl(): string {
    const hosts = this.nodes.map((n) => `127.0.0.1:${n.port}`).join(",");
    return `postgres://postgres@${hosts}/${this.database}?target_session_attrs=read-write`;
  }

  private command(args: string[]): [string, string[]] {
    const env = [`XDG_CONFIG_HOME=${path.join(this.dir, "config")}`, `XDG_DATA_HOME=${path.join(this.dir, "data")}`, `PATH=${this.bin}:/usr/bin:/bin`];
    const argv = ["env", ...env, PG_AUTOCTL, ...args];
    return this.asPostgres ? ["runuser", ["-u", "postgres", "--", ...argv]] : [argv[0]!, argv.slice(1)];
  }

  private run(args: string[]): string {
    const [file, argv] = this.command(args);
    return execFileSync(file, argv, { cwd: this.dir, stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 }).toString();
  }

  /** A long-running pg_autoctl service, leading its own process group. */
  private service(name: string, args: string[]): void {
    const [file, argv] = this.command(args);
    const child = spawn(file, argv, { cwd: this.dir, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let log = "";
    const keep = (d: Buffer) => {
      log = (log + d.toString()).slice(-20_000);
      this.logs.set(name, log);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    this.services.set(name, child);
  }

  /** The last lines a service wrote, for failure messages. */
  log(name: string): string {
    return (this.logs.get(name) ?? "").split("\n").slice(-25).join("\n");
  }

  private async nodeStates(): Promise<Map<string, string>> {
    const rows = await query<{ nodename: string; reportedstate: string; goalstate: string }>(
      this.monitor.port,
      "pg_auto_failover",
      "select nodename, reportedstate, goalstate from pgautofailover.node",
    );
    return new Map(rows.map((r) => [r.nodename, r.reportedstate === r.goalstate ? r.reportedstate : `${r.reportedstate}->${r.goalstate}`]));
  }

  async describe(): Promise<string> {
    return [...(await this.nodeStates().catch(() => new Map<string, string>()))].map(([n, s]) => `${n}: ${s}`).join(", ");
  }

  async start(): Promise<void> {
    const pgctl = ["--pgctl", path.join(this.bin, "pg_ctl")];
    this.run(["create", "monitor", ...pgctl, "--pgdata", this.monitor.pgdata, "--pgport", String(this.monitor.port), "--hostname", "127.0.0.1", "--auth", "trust", "--no-ssl"]);
    this.run(["config", "set", "--pgdata", this.monitor.pgdata, "postgresql.listen_addresses", "127.0.0.1"]);
    this.service("monitor", ["run", "--pgdata", this.monitor.pgdata]);
    await until("the monitor", async () => (await query(this.monitor.port, "pg_auto_failover", "select 1")).length === 1, 60_000);
    // Fast detection for a test on loopback; the defaults take 30 s and more to fail over.
    for (const [name, value] of [
      ["health_check_period", 1000],
      ["health_check_timeout", 2000],
      ["health_check_max_retries", 1],
      ["health_check_retry_delay", 500],
      ["node_considered_unhealthy_timeout", 3000],
      ["primary_demote_timeout", 3000],
      ["startup_grace_period", 3000],
    ] as const) {
      await query(this.monitor.port, "pg_auto_failover", `alter system set pgautofailover.${name} = ${value}`);
    }
    await query(this.monitor.port, "pg_auto_failover", "select pg_reload_conf()");

    const monitorUrl = `postgres://autoctl_node@127.0.0.1:${this.monitor.port}/pg_auto_failover?sslmode=disable`;
    const createNode = (node: NodeInfo) =>
      this.service(node.name, [
        "create", "postgres", ...pgctl, "--pgdata", node.pgdata, "--pgport", String(node.port), "--listen", "127.0.0.1",
        "--hostname", "127.0.0.1", "--name", node.name, "--dbname", this.database, "--auth", "trust", "--no-ssl",
        "--monitor", monitorUrl, "--run",
      ]);
    const [first, second] = this.nodes as [NodeInfo, NodeInfo];
    createNode(first);
    await until(`${first.name} to take writes`, async () => (await this.nodeStates()).get(first.name) === "single", 60_000);
    await query(first.port, this.database, "alter system set fsync = off");
    await query(first.port, this.database, "select pg_reload_conf()");
    createNode(second);
    // The standby's base backup waits for a checkpoint, spread over minutes unless one is asked for.
    await until(
      "the synchronous secondary",
      async () => {
        const states = await this.nodeStates();
        if (states.get(first.name) === "primary" && states.get(second.name) === "secondary") return true;
        await query(first.port, this.database, "checkpoint").catch(() => undefined);
        return false;
      },
      120_000,
      1_000,
    );
    await query(second.port, this.database, "alter system set fsync = off");
    await query(second.port, this.database, "select pg_reload_conf()");
  }

  /** Which data node takes writes now (asked of the nodes themselves), or null. */
  async writable(): Promise<NodeInfo | null> {
    for (const node of this.nodes) {
      const rows = await query<{ ro: string }>(node.port, this.database, "select current_setting('transaction_read_only') as ro").catch(() => []);
      if (rows[0]?.ro === "off") return node;
    }
    return null;
  }

  /** SIGKILL of a node's whole process group: its postgres and its pg_autoctl keeper, as when its machine dies. */
  kill(node: NodeInfo): void {
    const child = this.services.get(node.name);
    if (child?.pid) process.kill(-child.pid, "SIGKILL");
  }

  /** Stops every service (fast where it still runs) and removes the dir, whatever state things are in. */
  async stop(): Promise<void> {
    const alive = [...this.services.values()].filter((c) => c.pid && c.exitCode === null && c.signalCode === null);
    for (const child of alive) {
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // already gone
      }
    }
    const exited = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once("exit", () => r())));
    await Promise.race([Promise.all(alive.map(exited)), sleep(10_000)]);
    for (const child of alive) {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // stopped
      }
    }
    // A postmaster killed outright leaves its small System V segment behind: remove it.
    for (const node of [this.monitor, ...this.nodes]) {
      const pidFile = path.join(node.pgdata, "postmaster.pid");
      if (!existsSync(pidFile)) continue;
      const shmid = readFileSync(pidFile, "utf8").split("\n")[6]?.trim().split(/\s+/)[1];
      if (shmid && /^\d+$/.test(shmid)) {
        try {
          execFileSync("ipcrm", ["-m", shmid], { stdio: "ignore" });
        } catch {
          // gone with its server
        }
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
