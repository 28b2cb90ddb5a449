import { createServer, type AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
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
});
