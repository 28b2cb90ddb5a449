import net, { type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { listenForChanges, StoreChanges } from "@/lib/db/changes";
import { HostList, parseDatabaseUrl } from "@/lib/db/hosts";
import { fromDatabaseError, storeCertificateRefusal } from "@/lib/gateway/errors";
import { until } from "./formation";
import { TlsServers, type TlsServer } from "./tls-servers";

/**
 * A multi-host connection string over TLS, checked in full (sslmode=verify-full): two PostgreSQL servers on
 * 127.0.0.1 and 127.0.0.2, each with a certificate naming its own address only, as a formation's nodes have. The
 * first takes no writes (as a standby), so the host list goes to the second: its certificate must be checked against
 * the second's name, not the URL's first; and once the second refuses writes too (a switchover), it must be given
 * up on, its connections with it, and the first used, under TLS as without.
 *
 * The change listener, too, listens only where writes are taken.
 *
 * Ports 26120-26121, beside the failover test's (below Linux's ephemeral range).
 */

const servers = new TlsServers([
  { host: "127.0.0.1", port: 26_120 },
  { host: "127.0.0.2", port: 26_121 },
]);
const [first, second] = servers.servers as [TlsServer, TlsServer];
const pools: pg.Pool[] = [];

beforeAll(async () => {
  await servers.start();
}, 120_000);

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
  await servers.stop();
}, 60_000);

function hostList(): HostList {
  const ca = encodeURIComponent(servers.caFile);
  const url = `postgres://postgres@${first.host}:${first.port},${second.host}:${second.port}/postgres?target_session_attrs=read-write&sslmode=verify-full&sslrootcert=${ca}`;
  return new HostList(parseDatabaseUrl(url)!, 3_000);
}

function pool(hosts: HostList, max = 2): pg.Pool {
  // Idle connections are kept (no idle timeout): only the host list ends them here.
  const p = new pg.Pool({ ...hosts.clientConfig(), max, idleTimeoutMillis: 0, onConnect: (client: pg.ClientBase) => hosts.verify(client) });
  p.on("error", () => undefined);
  pools.push(p);
  return p;
}

/** Where a statement of `p` ran, and whether over TLS. */
async function servedBy(p: pg.Pool): Promise<{ host: string; tls: boolean }> {
  const { rows } = await p.query<{ host: string; tls: boolean }>(
    "select host(inet_server_addr()) as host, ssl as tls from pg_stat_ssl where pid = pg_backend_pid()",
  );
  return rows[0]!;
}

describe("a multi-host connection string over TLS", () => {
  it("checks each host's certificate against that host's own name", async () => {
    await servers.setReadOnly(first, true);
    const hosts = hostList();
    const p = pool(hosts);
    expect(await servedBy(p)).toEqual({ host: second.host, tls: true });
    expect(await hosts.choose()).toEqual({ host: second.host, port: second.port });
  });

  it("still refuses a certificate that names another host", async () => {
    const hosts = hostList();
    expect(await hosts.choose()).toEqual({ host: second.host, port: second.port });
    await servers.presentCertificateFor(second, "127.0.0.9");
    try {
      const p = pool(hosts);
      const error = await servedBy(p).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as NodeJS.ErrnoException).code).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
      // A gateway answers it 503 with Retry-After, as a store away, never 500; its log says which refusal.
      expect(fromDatabaseError(error)?.status).toBe(503);
      expect(storeCertificateRefusal(error)).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
      // So too when no host of the list is usable (the other a standby, this one refused): the list's scan says why.
      const scanned = await hostList()
        .choose()
        .catch((e: unknown) => e);
      expect((scanned as { code?: string }).code).toBe("STRATUS_NO_USABLE_HOST");
      expect(fromDatabaseError(scanned)?.status).toBe(503);
      expect(storeCertificateRefusal(scanned)).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
    } finally {
      await servers.presentCertificateFor(second, second.host);
    }
  });

  it("gives up a host found read-only, with its connections, and uses the one that takes writes now", async () => {
    await servers.setReadOnly(first, true);
    await servers.setReadOnly(second, false);
    const hosts = hostList();
    const serving = pool(hosts);
    // Two connections to the second, left idle in the pool.
    const lent = await Promise.all([serving.connect(), serving.connect()]);
    for (const client of lent) client.release();
    expect(serving.idleCount).toBe(2);
    expect(await hosts.choose()).toEqual({ host: second.host, port: second.port });

    // A switchover: the first takes writes, the second no longer does.
    await servers.setReadOnly(first, false);
    await servers.setReadOnly(second, true);

    // A new connection (another pool of the same list, as the index build's) reaches the second, finds it read-only,
    // and gives it up: the idle connections to it end, and the next connection looks again.
    const other = pool(hosts, 1);
    const refused = await other.connect().catch((e: unknown) => e);
    expect((refused as { code?: string }).code).toBe("25006");
    await until("the idle connections to the read-only host to end", async () => serving.totalCount === 0, 5_000, 100);
    expect(await hosts.choose()).toEqual({ host: first.host, port: first.port });
    expect(await servedBy(serving)).toEqual({ host: first.host, tls: true });
    expect(await servedBy(other)).toEqual({ host: first.host, tls: true });
  });

  it("hears a connection reset under TLS, as without: the next connection looks for a host again", async () => {
    await servers.setReadOnly(first, true);
    await servers.setReadOnly(second, false);
    // The second reached through a loopback relay on its own address (its certificate names it) that can reset every
    // connection through it, as a server's machine does when its postgres is killed with data unread.
    const { relay, sockets, port: relayPort } = await startRelay(second, second.host);
    try {
      const ca = encodeURIComponent(servers.caFile);
      const url = `postgres://postgres@${first.host}:${first.port},${second.host}:${relayPort}/postgres?target_session_attrs=read-write&sslmode=verify-full&sslrootcert=${ca}`;
      const hosts = new HostList(parseDatabaseUrl(url)!, 3_000);
      const p = pool(hosts);
      expect(await servedBy(p)).toEqual({ host: second.host, tls: true });
      const heard: number[] = [];
      hosts.onForget((host) => heard.push(host.port));
      for (const socket of sockets) socket.resetAndDestroy();
      await until("the reset to be heard", async () => heard.includes(relayPort), 5_000, 50);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => relay.close(resolve));
    }
  });

  it("names the host reached to its server (SNI), not the list's first", async () => {
    // The first host of the list is an address (no name is sent to it); the second, reached by name (localhost) through a
    // relay that reads each TLS client hello, presents a certificate for that name. Routers that pick the node by the
    // name a client sends (SNI) need it to be the node's own.
    await servers.setReadOnly(first, false);
    await servers.setReadOnly(second, true);
    await servers.presentCertificateFor(first, "localhost");
    const named: Array<string | null> = [];
    const { relay, sockets, port: relayPort } = await startRelay(first, "127.0.0.1", (client) => {
      let seen = Buffer.alloc(0);
      const hello = (chunk: Buffer) => {
        seen = Buffer.concat([seen, chunk]);
        const name = serverNameOf(seen.subarray(SSL_REQUEST_LENGTH));
        if (name === undefined) return; // not all of the hello yet
        named.push(name);
        client.off("data", hello);
      };
      client.on("data", hello);
    });
    try {
      const ca = encodeURIComponent(servers.caFile);
      const url = `postgres://postgres@${second.host}:${second.port},localhost:${relayPort}/postgres?target_session_attrs=read-write&sslmode=verify-full&sslrootcert=${ca}`;
      const hosts = new HostList(parseDatabaseUrl(url)!, 3_000);
      const p = pool(hosts);
      expect(await servedBy(p)).toEqual({ host: first.host, tls: true });
      // The list's own look for a host, then the pool's connection: each named localhost.
      expect(named.length).toBeGreaterThanOrEqual(2);
      expect(named).toEqual(named.map(() => "localhost"));
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => relay.close(resolve));
      await servers.presentCertificateFor(first, first.host);
    }
  });

  it("makes the change listener listen where writes are taken: a node that takes none hears no notice of them", async () => {
    await servers.setReadOnly(first, false);
    await servers.setReadOnly(second, true);
    const hosts = hostList();
    expect(await hosts.choose()).toEqual({ host: first.host, port: first.port });
    // A switchover nothing has told the list of yet (no connection failed): the first takes no writes, the second does.
    await servers.setReadOnly(first, true);
    await servers.setReadOnly(second, false);
    const changes = new StoreChanges();
    const listener = listenForChanges(hosts.clientConfig(), changes, () => undefined, undefined, (client) => hosts.verify(client));
    try {
      await until("the listener to listen", async () => changes.coherent, 15_000, 50);
      expect(await hosts.choose()).toEqual({ host: second.host, port: second.port });
      // A write's notice, sent where writes go now, reaches it.
      const before = changes.version;
      const writer = pool(hosts, 1);
      expect(await servedBy(writer)).toEqual({ host: second.host, tls: true });
      await writer.query("select pg_notify('stratus_changes', 'api_keys')");
      await until("the notice to arrive", async () => changes.version > before, 5_000, 50);
    } finally {
      await listener.close();
    }
  });
});

/** The bytes of PostgreSQL's SSLRequest, sent before the TLS client hello. */
const SSL_REQUEST_LENGTH = 8;

/**
 * The server name (SNI) a TLS client hello sends (RFC 8446 4.1.2, RFC 6066 3): null when it sends none, undefined while
 * the hello is not all there yet.
 */
function serverNameOf(record: Buffer): string | null | undefined {
  if (record.length < 5) return undefined;
  const length = record.readUInt16BE(3);
  if (record.length < 5 + length) return undefined;
  let at = 5 + 4 + 2 + 32; // record header, handshake header, legacy version, random
  at += 1 + record[at]!; // session id
  at += 2 + record.readUInt16BE(at); // cipher suites
  at += 1 + record[at]!; // compression methods
  const end = at + 2 + record.readUInt16BE(at);
  for (at += 2; at + 4 <= end; ) {
    const type = record.readUInt16BE(at);
    const size = record.readUInt16BE(at + 2);
    if (type === 0) {
      // server_name: a list (2 bytes of length), its first entry's type (0: a host name) and 2 bytes of length.
      const nameLength = record.readUInt16BE(at + 4 + 3);
      return record.toString("ascii", at + 4 + 5, at + 4 + 5 + nameLength);
    }
    at += 4 + size;
  }
  return null;
}

/** A loopback relay on `address` to a server, every socket through it kept (to reset them); `tap` sees each client first. */
async function startRelay(server: TlsServer, address: string, tap?: (client: net.Socket) => void): Promise<{ relay: net.Server; sockets: Set<net.Socket>; port: number }> {
  const sockets = new Set<net.Socket>();
  const relay = net.createServer((client) => {
    const upstream = net.connect(server.port, server.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => sockets.delete(socket));
    }
    tap?.(client);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, address, resolve));
  return { relay, sockets, port: (relay.address() as AddressInfo).port };
}
