import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";

/**
 * PostgreSQL servers on loopback that speak TLS only, each on an address of its own (127.0.0.1, 127.0.0.2, …) with a
 * certificate naming that address alone, signed by a certificate authority made here, as the nodes of a formation
 * behind TLS are: for the TLS test of a multi-host connection string. Run as the `postgres` OS user when this process
 * is root, like scripts/with-postgres.sh; everything lives in one temporary dir. Certificates are made with the
 * openssl command (Debian's openssl package; .ci/run installs it).
 */

export interface TlsServer {
  host: string;
  port: number;
  pgdata: string;
}

function pgBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(path.join(root, v, "bin", "pg_ctl"))) : [];
  const version = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!version) throw new Error("PostgreSQL server binaries not found: apt-get install -y postgresql");
  return path.join(root, version, "bin");
}

export class TlsServers {
  readonly dir = mkdtempSync(path.join(tmpdir(), "stratus-tls-"));
  readonly servers: TlsServer[];
  private readonly bin = pgBin();
  private readonly postgresUid: number | null = null;

  constructor(hosts: { host: string; port: number }[]) {
    this.servers = hosts.map((h, i) => ({ ...h, pgdata: path.join(this.dir, `node${i + 1}`) }));
    if (process.getuid?.() === 0) {
      try {
        execFileSync("id", ["postgres"], { stdio: "ignore" });
      } catch {
        execFileSync("useradd", ["--system", "--no-create-home", "postgres"]);
      }
      this.postgresUid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
      chownSync(this.dir, this.postgresUid, -1);
    }
  }

  /** The certificate authority's certificate: what a client trusts (sslrootcert). */
  get caFile(): string {
    return path.join(this.dir, "ca.crt");
  }

  private openssl(args: string[]): void {
    execFileSync("openssl", args, { cwd: this.dir, stdio: ["ignore", "ignore", "pipe"] });
  }

  private asPostgres(file: string, args: string[]): void {
    const [command, argv] = this.postgresUid === null ? [file, args] : ["runuser", ["-u", "postgres", "--", file, ...args]];
    execFileSync(command, argv, { cwd: this.dir, stdio: ["ignore", "ignore", "pipe"], timeout: 60_000 });
  }

  /** A certificate for `name` (an IP address or a DNS name), signed by the authority, written as `<file>.crt` and `<file>.key` in `dir`. */
  certificate(name: string, dir: string, file: string): void {
    const key = path.join(dir, `${file}.key`);
    const crt = path.join(dir, `${file}.crt`);
    const csr = path.join(this.dir, `${file}-${name}.csr`);
    const ext = path.join(this.dir, `${file}-${name}.ext`);
    writeFileSync(ext, `subjectAltName=${isIP(name) ? "IP" : "DNS"}:${name}\n`);
    this.openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-subj", `/CN=${name}`, "-out", csr]);
    this.openssl(["x509", "-req", "-in", csr, "-CA", this.caFile, "-CAkey", path.join(this.dir, "ca.key"), "-CAcreateserial", "-days", "2", "-extfile", ext, "-out", crt]);
    // The server reads its key only when no one else can.
    chmodSync(key, 0o600);
    if (this.postgresUid !== null) {
      chownSync(key, this.postgresUid, -1);
      chownSync(crt, this.postgresUid, -1);
    }
  }

  async start(): Promise<void> {
    this.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "ca.key", "-subj", "/CN=Stratus test CA", "-days", "2", "-out", "ca.crt"]);
    for (const server of this.servers) {
      this.asPostgres(path.join(this.bin, "initdb"), ["-D", server.pgdata, "-A", "trust", "-U", "postgres", "--no-sync"]);
      // Only TLS connections, from anywhere on loopback (a connection to 127.0.0.2 may come from 127.0.0.1).
      writeFileSync(path.join(server.pgdata, "pg_hba.conf"), "local all all trust\nhostssl all all 127.0.0.0/8 trust\n");
      this.certificate(server.host, server.pgdata, "server");
      appendFileSync(
        path.join(server.pgdata, "postgresql.conf"),
        `listen_addresses = '${server.host}'\nport = ${server.port}\nunix_socket_directories = '${this.dir}'\nssl = on\nfsync = off\n`,
      );
      this.asPostgres(path.join(this.bin, "pg_ctl"), ["-D", server.pgdata, "-w", "-l", path.join(server.pgdata, "server.log"), "start"]);
    }
  }

  /** Runs one statement as the superuser on a server, through its Unix socket (whatever certificate it presents). */
  async query<T extends pg.QueryResultRow>(server: TlsServer, text: string): Promise<T[]> {
    const client = new pg.Client({ host: this.dir, port: server.port, user: "postgres", database: "postgres", connectionTimeoutMillis: 5_000 });
    client.on("error", () => undefined);
    try {
      await client.connect();
      return (await client.query<T>(text)).rows;
    } finally {
      client.end().catch(() => undefined);
    }
  }

  /**
   * Makes a server take writes or refuse them, as a primary and a standby do to `target_session_attrs=read-write`
   * (`transaction_read_only` on): new sessions and, at their next statement, open ones.
   */
  async setReadOnly(server: TlsServer, readOnly: boolean): Promise<void> {
    await this.query(server, `alter system set default_transaction_read_only = ${readOnly ? "on" : "off"}`);
    await this.query(server, "select pg_reload_conf()");
  }

  /** Gives a server a new certificate for `name` (not its own address, say), read on reload. */
  async presentCertificateFor(server: TlsServer, name: string): Promise<void> {
    this.certificate(name, server.pgdata, "server");
    await this.query(server, "select pg_reload_conf()");
  }

  async stop(): Promise<void> {
    for (const server of this.servers) {
      if (!existsSync(path.join(server.pgdata, "postmaster.pid"))) continue;
      try {
        this.asPostgres(path.join(this.bin, "pg_ctl"), ["-D", server.pgdata, "-m", "immediate", "stop"]);
      } catch {
        // stopped
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
