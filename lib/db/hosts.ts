import net from "node:net";
import type { Duplex } from "node:stream";
import tls from "node:tls";
import pg from "pg";
import { isSocketDir, socketPath, urlForHost, type Host, type ParsedUrl, type SessionAttrs } from "./database-url";

export { parseDatabaseUrl, type Host, type ParsedUrl } from "./database-url";

/*
 * Connections for a multi-host connection string (./database-url). A highly available
 * formation (a primary and its standbys) is named by all its nodes; every new connection
 * goes to the node that takes writes now, found by trying the hosts in order as libpq does.
 */

/** No host of the list takes connections of the kind asked for (all down, or all standbys mid-failover). */
export class NoUsableHostError extends Error {
  readonly code = "STRATUS_NO_USABLE_HOST";
  /** Each host's own error, where connecting to it failed (a TLS refusal's code among them): read by lib/gateway/errors. */
  readonly errors: Error[];
  constructor(hosts: Host[], attrs: SessionAttrs, causes: string[], errors: Error[] = []) {
    super(`no ${attrs === "read-write" ? "writable " : ""}host among ${hosts.map((h) => `${h.host}:${h.port}`).join(",")} (${causes.join("; ")})`);
    this.errors = errors;
  }
}

/** A host that did not answer a new connection within the connect timeout: gone, its connections with it. */
export class SilentHostError extends Error {
  /** The store away for now (lib/gateway/errors answers 503), as a refused or reset connection is. */
  readonly code = "STRATUS_SILENT_HOST";
  constructor(host: Host, ms: number) {
    super(`${host.host}:${host.port} did not answer within ${ms} ms`);
  }
}

/** What a connection still open to a host given up on (gone silent, or a standby) ends with. */
export class HostGivenUpError extends Error {
  readonly code = "STRATUS_HOST_GIVEN_UP";
  constructor(host: Host) {
    super(`the store's host ${host.host}:${host.port} was given up on`);
  }
}

/** A server that answered but does not take writes; the connection is refused like libpq refuses it. */
export class ReadOnlyHostError extends Error {
  readonly code = "25006";
  constructor(host: Host) {
    super(`${host.host}:${host.port} is read-only (a standby): looking for the new primary`);
  }
}

/**
 * The hosts of one connection string and which of them to use now. The chosen host
 * is remembered until a connection to it fails or finds it read-only; then the next
 * connection scans the list again.
 */
export class HostList {
  private chosen: Host | null = null;
  private scanning: Promise<Host> | null = null;

  constructor(
    readonly parsed: ParsedUrl,
    private readonly connectTimeoutMs = 3_000,
  ) {}

  get readWrite(): boolean {
    return this.parsed.targetSessionAttrs === "read-write";
  }

  /** The host to open the next connection to. */
  choose(): Promise<Host> {
    if (this.chosen) return Promise.resolve(this.chosen);
    this.scanning ??= this.scan().finally(() => {
      this.scanning = null;
    });
    return this.scanning;
  }

  private readonly forgetting = new Set<(host: Host) => void>();

  /** Calls `listener` whenever a host is forgotten (a connection to it failed, or found it read-only); returns how to stop. */
  onForget(listener: (host: Host) => void): () => void {
    this.forgetting.add(listener);
    return () => this.forgetting.delete(listener);
  }

  /** The sockets open to each host: a host found gone takes its connections with it. */
  private readonly open = new Map<Host, Set<net.Socket>>();
  /** Sockets being ended because their host was found gone: their own errors say nothing more of it. */
  private readonly dropping = new WeakSet<net.Socket>();

  /**
   * A connection to `host` failed or found it unusable: choose again next time. With `gone` (the host went silent, or
   * became a standby), every connection still open to it ends too: a host that went silent (its machine off, a network
   * cut: no reset, no end) would otherwise keep them, an idle one lent out next hanging on its first statement, each
   * lent until TCP gives up (a quarter of an hour), the pool exhausted meanwhile; a standby takes no write. One
   * connection's error alone (a reset) leaves the others be: the host may be well.
   */
  forget(host: Host, gone = false): void {
    if (this.chosen === host) this.chosen = null;
    const sockets = gone ? this.open.get(host) : undefined;
    if (sockets) {
      this.open.delete(host);
      for (const socket of sockets) {
        this.dropping.add(socket);
        socket.destroy(new HostGivenUpError(host));
      }
    }
    for (const listener of this.forgetting) listener(host);
  }

  /**
   * Opens a connection to the host chosen now, and closes it: one it does not answer within the connect timeout finds
   * it gone (socket()), its connections ended with it. For when a pool, all of whose connections may hang on a silent
   * host, lends none to ask with (the change listener's heartbeat could not be sent).
   */
  async probe(): Promise<void> {
    let client: pg.Client | undefined;
    try {
      // Inside the try: making a client reads the TLS files the URL names, which may be away (a rotation).
      // A statement unanswered as long as a connection may take (a pooler holding it before a dead server) is the host's.
      client = new pg.Client({ ...this.clientConfig(), query_timeout: this.connectTimeoutMs });
      client.on("error", () => undefined);
      await client.connect();
      await client.query("select 1");
    } catch (error) {
      // Said by the socket, when it is the host's silence; a host that took the session and then answered nothing is gone too.
      const host = client && this.hostOf(client);
      if (host && /^Query read timeout/.test((error as Error).message)) this.forget(host, true);
    } finally {
      client?.end().catch(() => undefined);
    }
  }

  private async scan(): Promise<Host> {
    const causes: string[] = [];
    const errors: Error[] = [];
    for (const host of this.parsed.hosts) {
      let probe: pg.Client | undefined;
      try {
        probe = new pg.Client({
          connectionString: urlForHost(this.parsed, host),
          connectionTimeoutMillis: this.connectTimeoutMs,
          // A host that takes the session but then answers nothing (a pooler before a dead server holds the query until
          // its own timeout) would hold the scan, and every new connection waiting on it, with no end.
          query_timeout: this.connectTimeoutMs,
        });
        probe.on("error", () => undefined);
        await probe.connect();
        if (this.readWrite && (await isReadOnly(probe))) {
          causes.push(`${host.host}:${host.port} read-only`);
          continue;
        }
        this.chosen = host;
        return host;
      } catch (error) {
        causes.push(`${host.host}:${host.port} ${(error as Error).message}`);
        errors.push(error as Error);
      } finally {
        // Not awaited: ending a client whose connection failed can wait forever for an end that never comes.
        probe?.end().catch(() => undefined);
      }
    }
    throw new NoUsableHostError(this.parsed.hosts, this.parsed.targetSessionAttrs, causes, errors);
  }

  /**
   * node-postgres settings that send each connection to the chosen host: its socket
   * connects where `choose` says, whatever host the parsed URL names.
   */
  clientConfig(): pg.ClientConfig {
    return {
      connectionString: this.parsed.singleHostUrl,
      // A second longer than the socket's own watch (socket()): a silent host is found so, and said to be gone.
      connectionTimeoutMillis: this.connectTimeoutMs + 1_000,
      stream: this.streamFunction() as unknown as () => Duplex,
    };
  }

  /** Checks a new session as libpq's target_session_attrs does; refuses it (and forgets its host) when read-only. */
  async verify(client: pg.ClientBase): Promise<void> {
    this.followTls(client);
    if (!this.readWrite) return;
    const host = this.hostOf(client);
    if (await isReadOnly(client)) {
      if (host) this.forget(host, true);
      throw new ReadOnlyHostError(host ?? { host: "?", port: 0 });
    }
    if (host) this.heedRefusals(client, host);
  }

  /**
   * A host that took writes may stop without a restart (fenced: default_transaction_read_only set and the configuration
   * reloaded; demoted by a tool that keeps sessions): its connections, checked when they were made, are then refused
   * every write (25006) for as long as the pool keeps them. A refusal heard from the server on any statement has the
   * host asked again, on a connection of its own (a transaction begun read only is refused so too, the host well); one
   * that answers read-only is given up on, its connections with it, and the next connection looks for the new primary.
   */
  private heedRefusals(client: pg.ClientBase, host: Host): void {
    const connection = (client as unknown as { connection?: NodeJS.EventEmitter }).connection;
    connection?.on("errorMessage", (message: { code?: string }) => {
      if (message.code === "25006") void this.recheck(host);
    });
  }

  private readonly rechecking = new Set<Host>();

  /** Asks `host` whether it still takes writes; gives it up if it does not. One question at a time per host. */
  private async recheck(host: Host): Promise<void> {
    if (this.rechecking.has(host)) return;
    this.rechecking.add(host);
    let client: pg.Client | undefined;
    try {
      client = new pg.Client({ connectionString: urlForHost(this.parsed, host), connectionTimeoutMillis: this.connectTimeoutMs, query_timeout: this.connectTimeoutMs });
      client.on("error", () => undefined);
      await client.connect();
      if (await isReadOnly(client)) this.forget(host, true);
    } catch {
      // Unreachable now: the connections' own errors say so, and the next connection looks again.
    } finally {
      this.rechecking.delete(host);
      client?.end().catch(() => undefined);
    }
  }

  private readonly socketHosts = new WeakMap<net.Socket, Host>();

  /** The client's stream: under TLS, the TLS socket over the one socket() made (node's TLSSocket keeps that as `_parent`). */
  private static streamOf(client: pg.ClientBase): { stream?: net.Socket; raw?: net.Socket } {
    const stream = (client as unknown as { connection?: { stream?: net.Socket } }).connection?.stream;
    return { stream, raw: stream instanceof tls.TLSSocket ? (stream as unknown as { _parent?: net.Socket })._parent : stream };
  }

  private hostOf(client: pg.ClientBase): Host | undefined {
    const { raw } = HostList.streamOf(client);
    return raw ? this.socketHosts.get(raw) : undefined;
  }

  /**
   * Under TLS a reset or a broken record is said by the TLS socket only (the socket under it just closes): heard there
   * too, it makes the next connection look for the host again, as a reset does without TLS.
   */
  private followTls(client: pg.ClientBase): void {
    const { stream, raw } = HostList.streamOf(client);
    const host = raw && this.socketHosts.get(raw);
    if (!host || !stream || stream === raw) return;
    stream.once("error", () => {
      if (!this.dropping.has(raw)) this.forget(host);
    });
  }

  /**
   * With TLS, node-postgres names the URL's first host to the server (SNI) and checks its certificate against that name,
   * whichever host the socket reached; libpq does both with each host's own name. The connection's TLS upgrade is given
   * the host reached instead: node-postgres then sends it as SNI (unless an IP address, RFC 6066) and checks the
   * certificate against it (an IP address is sent as no name, and checked as the address). A `checkServerIdentity`
   * already set (libpq's verify-ca, with uselibpqcompat=true: no name checked) stays as asked.
   */
  private upgradeToHostReached(connection: PgConnection, socket: net.Socket): void {
    const upgrade = connection.upgradeToSSL;
    if (typeof upgrade !== "function") {
      // Without it every connection after a failover would fail the name check, or name the wrong host: refuse at once.
      throw new Error("node-postgres's connection has no upgradeToSSL: lib/db/hosts.ts needs updating for this version of pg");
    }
    const reached = () => this.socketHosts.get(socket)?.host;
    connection.upgradeToSSL = function (this: PgConnection, host: string, ...rest: unknown[]) {
      return upgrade.call(this, reached() ?? host, ...rest);
    };
  }

  /**
   * The `stream` function of the list's connections. node-postgres calls it as a method of the new connection
   * (`this.stream(config)` in its constructor), so its `this` is that connection: an arrow function would lose it.
   */
  private streamFunction() {
    const socket = (connection: PgConnection | undefined, settings?: ConnectionSettings) => this.socket(connection, settings);
    return function (this: PgConnection | undefined, settings?: ConnectionSettings): net.Socket {
      return socket(this, settings);
    };
  }

  /** A new connection's socket; `connection` is node-postgres's connection, `settings` what it was made with. */
  private socket(connection: PgConnection | undefined, settings?: ConnectionSettings): net.Socket {
    const socket = new net.Socket();
    if (settings?.ssl && connection) this.upgradeToHostReached(connection, socket);
    const connect = net.Socket.prototype.connect as (this: net.Socket, options: net.TcpSocketConnectOpts | net.IpcSocketConnectOpts) => net.Socket;
    // A host that is a directory is a Unix socket's, as libpq reads it: the server's socket file in it.
    const connectTo = (host: Host) =>
      isSocketDir(host) ? connect.call(socket, { path: socketPath(host) }) : connect.call(socket, { port: host.port, host: host.host });
    // node-postgres calls connect(port, host) with the URL's first host: go where the list says instead.
    socket.connect = (() => {
      this.choose().then(
        (host) => {
          if (socket.destroyed) return;
          this.socketHosts.set(socket, host);
          const open = this.open.get(host) ?? new Set<net.Socket>();
          this.open.set(host, open.add(socket));
          // A server answers a new session's first message at once: nothing at all within the connect timeout once its
          // address is known (the handshake unanswered, or the server silent after it) is a host gone, all its
          // connections with it. (node-postgres's own timeout, the pool's, ends the socket without a word.)
          let silent: NodeJS.Timeout | undefined;
          const watch = () => {
            silent = setTimeout(() => {
              if (socket.bytesRead === 0 && !socket.destroyed) socket.destroy(new SilentHostError(host, this.connectTimeoutMs));
            }, this.connectTimeoutMs);
            silent.unref();
          };
          // A name is looked up first, which is no sign of the host's health.
          if (net.isIP(host.host) || isSocketDir(host)) watch();
          else socket.once("lookup", watch);
          // Refused, reset or timed out: the next connection looks for the host again.
          socket.once("error", (error) => {
            if (!this.dropping.has(socket)) this.forget(host, error instanceof SilentHostError);
          });
          socket.once("close", () => {
            clearTimeout(silent);
            this.open.get(host)?.delete(socket);
          });
          connectTo(host);
        },
        (error: Error) => socket.destroy(error),
      );
      return socket;
    }) as net.Socket["connect"];
    return socket;
  }
}

/** What node-postgres hands a `stream` function: the new connection's settings. */
interface ConnectionSettings {
  ssl?: boolean | tls.ConnectionOptions;
}

/** node-postgres's connection, as far as the host list reaches into it: its TLS upgrade, given the host to name. */
interface PgConnection {
  upgradeToSSL?: (host: string, ...rest: unknown[]) => void;
}

async function isReadOnly(client: pg.ClientBase): Promise<boolean> {
  const result = await client.query<{ transaction_read_only: string }>("show transaction_read_only");
  return result.rows[0]?.transaction_read_only === "on";
}
