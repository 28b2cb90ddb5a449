import net, { type AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshStoreOptions } from "../testing";
import { openStore, type Store } from "./client";

/**
 * A host that goes silent (its machine off, a network cut): no reset, no end, its connections simply stop answering.
 * The store is named by two hosts, the first reached through a loopback relay that can be made to go silent, the
 * second the same server directly: once the first is silent, the store must serve through the second, without a
 * restart, its pooled connections to the first given up. (A primary killed outright, which the kernel answers with
 * resets, is npm run test:failover.)
 */

/** A TCP relay to `target` that, once `silence()` is called, reads and forwards nothing more, on old connections and new. */
async function relay(target: { host: string; port: number }) {
  let silent = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on("error", () => undefined);
    client.on("close", () => sockets.delete(client));
    if (silent) return client.pause();
    const upstream = net.connect(target.port, target.host);
    sockets.add(upstream);
    upstream.on("error", () => client.destroy());
    upstream.on("close", () => sockets.delete(upstream));
    client.on("close", () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    silence: () => {
      silent = true;
      for (const socket of sockets) {
        socket.unpipe();
        socket.pause();
      }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(!onPostgres)("a store whose host goes silent", () => {
  let store: Store;
  let drop: () => Promise<void>;
  let through: Awaited<ReturnType<typeof relay>>;

  beforeAll(async () => {
    const fresh = await freshStoreOptions();
    drop = fresh.drop;
    if (fresh.store.kind !== "postgres") throw new Error("a PostgreSQL store was expected");
    const direct = new URL(fresh.store.url);
    through = await relay({ host: direct.hostname, port: Number(direct.port) });
    const url = `postgres://${direct.username}${direct.password ? `:${direct.password}` : ""}@127.0.0.1:${through.port},${direct.host}${direct.pathname}?target_session_attrs=read-write`;
    store = await openStore({ kind: "postgres", url, poolSize: 2 });
  });
  afterAll(async () => {
    await store?.close();
    await through?.close();
    await drop?.();
  });

  /** How a statement ends within `ms`: answered, failed, or neither (a statement on a silent connection never ends). */
  function outcome(ms: number): Promise<"answered" | "failed" | "hanging"> {
    const timeout = new Promise<"hanging">((resolve) => setTimeout(() => resolve("hanging"), ms).unref());
    const query = store.db.execute(sql`select 1`).then(
      () => "answered" as const,
      () => "failed" as const,
    );
    return Promise.race([query, timeout]);
  }
  const answers = async (ms: number) => (await outcome(ms)) === "answered";

  it("serves through the next host within a minute, its connections to the silent one given up, the pool all lent meanwhile", async () => {
    // Both pooled connections open (through the relay, the first host), then the relay goes silent, and two statements
    // take both connections at once and hang there: the pool lends nothing more (the listener's heartbeat neither).
    expect(await Promise.all([answers(10_000), answers(10_000)])).toEqual([true, true]);
    through.silence();
    const silencedAt = Date.now();
    const hanging = [outcome(55_000), outcome(55_000)];
    let served = false;
    while (!served && Date.now() - silencedAt < 60_000) served = await answers(5_000);
    expect({ served, within: served ? "a minute" : `${Date.now() - silencedAt} ms` }).toEqual({ served: true, within: "a minute" });
    // The two that hung on the silent host failed once their connections were ended, rather than wait for TCP.
    expect(await Promise.all(hanging)).toEqual(["failed", "failed"]);
  }, 90_000);
});
