import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { fromDatabaseError, isStoreUnavailable } from "@/lib/gateway/errors";
import { fakeServer } from "./fake-server";
import { HostList, NoUsableHostError, parseDatabaseUrl } from "./hosts";

/** A loopback port nothing listens on. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe("a host list", () => {
  it("gives up promptly, naming every host, when none answers", async () => {
    const [a, b] = [await deadPort(), await deadPort()];
    const hosts = new HostList(parseDatabaseUrl(`postgres://u@127.0.0.1:${a},127.0.0.1:${b}/db?target_session_attrs=read-write`)!, 1_000);
    const started = Date.now();
    const error = await hosts.choose().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoUsableHostError);
    expect((error as Error).message).toContain(`127.0.0.1:${a}`);
    expect((error as Error).message).toContain(`127.0.0.1:${b}`);
    // And again (a failed scan is not kept).
    expect(await hosts.choose().catch((e: unknown) => e)).toBeInstanceOf(NoUsableHostError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("forgetting a host", () => {
  it("tells whoever asked (the change listener), and the next connection looks for a host again", async () => {
    const [a, b] = [await deadPort(), await deadPort()];
    const hosts = new HostList(parseDatabaseUrl(`postgres://u@127.0.0.1:${a},127.0.0.1:${b}/db`)!, 1_000);
    const heard: string[] = [];
    const stop = hosts.onForget((host) => heard.push(`${host.host}:${host.port}`));
    hosts.forget(hosts.parsed.hosts[0]!);
    expect(heard).toEqual([`127.0.0.1:${a}`]);
    stop();
    hosts.forget(hosts.parsed.hosts[1]!);
    expect(heard).toHaveLength(1);
  });
});

describe("a host list's errors, answered as a store away (503), never 500", () => {
  it("a host that took the list's first look, then answers no new connection", async () => {
    // The list's look for a host starts a session; every connection after it is met with silence.
    const server = await fakeServer((n) => (n === 0 ? "writable" : "silent"));
    const hosts = new HostList(parseDatabaseUrl(`postgres://u@127.0.0.1:${server.port}/db?target_session_attrs=read-write`)!, 300);
    const pool = new pg.Pool({ ...hosts.clientConfig(), max: 1 });
    pool.on("error", () => undefined);
    try {
      const error = await pool.query("select 1").catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/did not answer within 300 ms/);
      expect(isStoreUnavailable(error)).toBe(true);
      expect(fromDatabaseError(error)?.status).toBe(503);
    } finally {
      await pool.end().catch(() => undefined);
      await server.close();
    }
  });

  it("a statement under way on a connection whose host is given up on", async () => {
    const server = await fakeServer(() => "mute");
    const hosts = new HostList(parseDatabaseUrl(`postgres://u@127.0.0.1:${server.port}/db`)!, 1_000);
    const pool = new pg.Pool({ ...hosts.clientConfig(), max: 1 });
    pool.on("error", () => undefined);
    try {
      const client = await pool.connect();
      // As the store's pool does for each of its connections (lib/db/open.ts): an error is the statement's to tell.
      client.on("error", () => undefined);
      const pending = client.query("select 1").catch((e: unknown) => e);
      hosts.forget(hosts.parsed.hosts[0]!, true);
      const error = await pending;
      expect((error as Error).message).toMatch(/was given up on/);
      expect(isStoreUnavailable(error)).toBe(true);
      expect(fromDatabaseError(error)?.status).toBe(503);
      client.release(true);
    } finally {
      await pool.end().catch(() => undefined);
      await server.close();
    }
  });
});

describe("a host list's probe", () => {
  it("settles, never rejects, when its client cannot even be made (a TLS file the URL names away for a moment)", async () => {
    const port = await deadPort();
    const hosts = new HostList(parseDatabaseUrl(`postgres://u@127.0.0.1:${port}/db?target_session_attrs=read-write&sslrootcert=/nonexistent/ca.crt`)!, 300);
    // Called as `void hosts.probe()`: a rejection would be no one's to hear.
    await expect(hosts.probe()).resolves.toBeUndefined();
  });

  it("gives up on the host when it takes the session and then answers nothing", async () => {
    // The list's look for a host is answered; the probe's statement, later, is held (a pooler before a dead server).
    const server = await fakeServer((n) => (n === 0 ? "writable" : "mute"));
    const hosts = new HostList(parseDatabaseUrl(`postgres://u@127.0.0.1:${server.port}/db?target_session_attrs=read-write`)!, 300);
    try {
      expect(await hosts.choose()).toEqual({ host: "127.0.0.1", port: server.port });
      const heard: number[] = [];
      hosts.onForget((host) => heard.push(host.port));
      const done = await Promise.race([hosts.probe().then(() => "settled"), new Promise((resolve) => setTimeout(() => resolve("still waiting"), 5_000))]);
      expect(done).toBe("settled");
      expect(heard).toEqual([server.port]);
    } finally {
      await server.close();
    }
  });
});

describe("a host that stops taking writes without a restart (fenced, or demoted keeping its sessions)", () => {
  it("is given up on when a pooled connection's write is refused (25006), its other connections with it, and the next goes to the new primary", async () => {
    const old = await fakeServer(() => "writable");
    const next = await fakeServer(() => "writable");
    const hosts = new HostList(parseDatabaseUrl(`postgres://u@127.0.0.1:${old.port},127.0.0.1:${next.port}/db?target_session_attrs=read-write`)!, 1_000);
    const pool = new pg.Pool({ ...hosts.clientConfig(), max: 2, onConnect: (client: pg.ClientBase) => hosts.verify(client) });
    pool.on("error", () => undefined);
    const forgotten: number[] = [];
    hosts.onForget((host) => forgotten.push(host.port));
    const held: pg.PoolClient[] = [];
    try {
      // Both connections made to the first host and checked then: it took writes.
      held.push(await pool.connect(), await pool.connect());
      for (const client of held) client.on("error", () => undefined);
      const [a, b] = held as [pg.PoolClient, pg.PoolClient];
      expect(old.connections()).toBe(3); // the look for a host, then the two
      old.demote();
      const refused = await a.query("insert into t values (1)").catch((e: unknown) => e);
      expect((refused as { code?: string }).code).toBe("25006");
      expect(fromDatabaseError(refused)?.status).toBe(503);
      // The host is asked again on a connection of its own, found read-only, and given up on: the idle one ends too.
      for (let waited = 0; forgotten.length === 0 && waited < 5_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      expect(forgotten).toEqual([old.port]);
      await expect(b.query("select 1")).rejects.toThrow(/not queryable/);
      for (const client of held.splice(0)) client.release(true);
      await pool.query("insert into t values (2)");
      expect(await hosts.choose()).toEqual({ host: "127.0.0.1", port: next.port });
    } finally {
      for (const client of held) client.release(true);
      await pool.end().catch(() => undefined);
      await old.close();
      await next.close();
    }
  });
});

describe("a host list's look for a host", () => {
  it("gives up on a host that starts the session and then answers nothing, and goes on to the next", async () => {
    // As a pooler before a dead server does: the session starts, its first statement is held.
    const mute = await fakeServer(() => "mute");
    const writable = await fakeServer(() => "writable");
    const hosts = new HostList(parseDatabaseUrl(`postgres://u@127.0.0.1:${mute.port},127.0.0.1:${writable.port}/db?target_session_attrs=read-write`)!, 300);
    try {
      const chosen = await Promise.race([hosts.choose(), new Promise((resolve) => setTimeout(() => resolve("still looking"), 5_000))]);
      expect(chosen).toEqual({ host: "127.0.0.1", port: writable.port });
    } finally {
      await mute.close();
      await writable.close();
    }
  });
});

describe("a Unix socket's host", () => {
  it("is read percent-decoded, and connected to as libpq does (the socket file in that directory)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "stratus-socket-"));
    const server = await fakeServer(() => "writable", path.join(dir, ".s.PGSQL.5433"));
    try {
      const parsed = parseDatabaseUrl(`postgres://u@${encodeURIComponent(dir)}:5433/db?target_session_attrs=read-write`)!;
      expect(parsed.hosts).toEqual([{ host: dir, port: 5433 }]);
      const hosts = new HostList(parsed, 1_000);
      const pool = new pg.Pool({ ...hosts.clientConfig(), max: 1, onConnect: (client: pg.ClientBase) => hosts.verify(client) });
      try {
        const { rows } = await pool.query<{ transaction_read_only: string }>("show transaction_read_only");
        expect(rows).toEqual([{ transaction_read_only: "off" }]);
        expect(await hosts.choose()).toEqual({ host: dir, port: 5433 });
      } finally {
        await pool.end();
      }
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("takes no TLS, and a URL asking for it with such a host is refused plainly", () => {
    expect(() => parseDatabaseUrl("postgres://u@%2Frun%2Fpostgresql,db2:5432/db?target_session_attrs=read-write&sslmode=require")).toThrow(
      /Unix socket \/run\/postgresql takes no TLS/,
    );
    expect(parseDatabaseUrl("postgres://u@%2Frun%2Fpostgresql,db2:5432/db?sslmode=disable")!.hosts).toHaveLength(2);
  });

  it("refuses a host whose percent-encoding is broken", () => {
    expect(parseDatabaseUrl("postgres://u@%E0%A4%A/db")).toBeNull();
  });
});

const admin = process.env.TEST_DATABASE_URL;

describe.skipIf(!admin)("a host list over PostgreSQL", () => {
  const pools: pg.Pool[] = [];
  afterAll(async () => {
    for (const pool of pools) await pool.end();
  });

  it("skips a host that is down and connects to the one that takes writes", async () => {
    const url = new URL(admin!);
    const dead = await deadPort();
    const hosts = new HostList(parseDatabaseUrl(`postgres://${url.username}@127.0.0.1:${dead},${url.host}${url.pathname}?target_session_attrs=read-write`)!, 2_000);
    const pool = new pg.Pool({ ...hosts.clientConfig(), max: 2, onConnect: (client: pg.ClientBase) => hosts.verify(client) });
    pools.push(pool);
    const { rows } = await pool.query<{ ro: string; port: number }>("select current_setting('transaction_read_only') as ro, inet_server_port() as port");
    expect(rows[0]).toEqual({ ro: "off", port: Number(url.port) });
    expect(await hosts.choose()).toEqual({ host: url.hostname, port: Number(url.port) });
  });

  it("keeps a host that refused a write only because the transaction was begun read only", async () => {
    const url = new URL(admin!);
    const hosts = new HostList(parseDatabaseUrl(`postgres://${url.username}@${url.host}${url.pathname}?target_session_attrs=read-write`)!, 2_000);
    const pool = new pg.Pool({ ...hosts.clientConfig(), max: 2, onConnect: (client: pg.ClientBase) => hosts.verify(client) });
    pools.push(pool);
    const forgotten: number[] = [];
    hosts.onForget((host) => forgotten.push(host.port));
    const client = await pool.connect();
    try {
      await client.query("begin read only");
      const refused = await client.query("create temporary table kept (id int)").catch((e: unknown) => e);
      expect((refused as { code?: string }).code).toBe("25006");
      await client.query("rollback");
      // The host is asked again (it takes writes) and kept: the connection answers, no host is forgotten.
      await new Promise((r) => setTimeout(r, 500));
      expect((await client.query<{ n: number }>("select 1 as n")).rows).toEqual([{ n: 1 }]);
      expect(forgotten).toEqual([]);
    } finally {
      client.release();
    }
  });
});
