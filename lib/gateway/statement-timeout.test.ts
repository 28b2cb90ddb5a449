import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/open";
import { fromDatabaseError } from "./errors";
import { projects } from "./store/schema";
import { createTestGateway, freshStoreOptions, type TestGateway } from "./testing";

/**
 * On PostgreSQL the gateway's pool carries statement_timeout = the request deadline: a request
 * answered 504 leaves no statement running on the server, holding a pooled connection (a search
 * reading a whole organization, a lock waited on). PGlite runs in the process and one statement
 * at a time; these run on PostgreSQL only (`npm run test:pg`).
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/** A test gateway on PostgreSQL with the given deadline for the describe block, and its store's URL. */
function gatewayWithDeadline(requestTimeoutMs: number): { t: TestGateway; url: string } {
  const held = {} as { t: TestGateway; url: string };
  beforeAll(async () => {
    held.t = await createTestGateway({ requestTimeoutMs });
    held.url = (held.t.gateway.store.db as unknown as { $client: pg.Pool }).$client.options.connectionString!;
  });
  afterAll(() => held.t?.close());
  return held;
}

describe.skipIf(!onPostgres)("statements stop at the request deadline (PostgreSQL)", () => {
  const at = gatewayWithDeadline(1_000);

  it("a request waiting on a lock answers 504, and its statement is gone from the server", async () => {
    const { t, url } = at;
    // Another session inserts the same project name and holds its transaction open: the
    // request's insert waits on the unique index for that transaction to end.
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("insert into projects (id, organization_id, name) values ($1, $2, 'held-name')", [randomUUID(), t.demo.organization_id]);
      const res = await t.opJson<{ code: string; reason: string }>("owner", "createProject", { body: { organization_id: t.demo.organization_id, name: "held-name" } });
      expect(res.status).toBe(504);
      // Nothing of the request waits on the server any longer (without the timeout it waited for the holder).
      const waiting = async () =>
        (await holder.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'")).rows[0]!.n;
      await expect.poll(waiting, { timeout: 3_000 }).toBe(0);
    } finally {
      await holder.query("rollback").catch(() => undefined);
      await holder.end();
    }
    // The pool is whole afterwards: the same request, unhindered, is answered.
    const again = await t.opJson("owner", "createProject", { body: { organization_id: t.demo.organization_id, name: "held-name" } });
    expect(again.status).toBe(200);
  });

  it("a statement stopped by the timeout is the 504 of the deadline, never a 500", async () => {
    const { t } = at;
    const pool = (t.gateway.store.db as unknown as { $client: pg.Pool }).$client;
    const stopped = await pool.query("select pg_sleep(5)").then(
      () => null,
      (error: unknown) => error,
    );
    expect((stopped as { code?: string }).code).toBe("57014");
    expect(fromDatabaseError(stopped)?.status).toBe(504);
  });
});

describe.skipIf(!onPostgres)("a statement cancelled on the server (PostgreSQL)", () => {
  const at = gatewayWithDeadline(20_000);

  it("is a 503 to retry with Retry-After, not the 504 of a deadline the request never reached", async () => {
    const { t, url } = at;
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("insert into projects (id, organization_id, name) values ($1, $2, 'cancelled-name')", [randomUUID(), t.demo.organization_id]);
      const answer = t.op("owner", "createProject", { body: { organization_id: t.demo.organization_id, name: "cancelled-name" } });
      // An operator cancels the statement waiting on the holder's lock.
      const cancelled = async () =>
        (await holder.query<{ n: number }>("select count(*)::int as n from (select pg_cancel_backend(pid) from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock') c")).rows[0]!.n;
      await expect.poll(cancelled, { timeout: 5_000 }).toBe(1);
      const res = await answer;
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(((await res.json()) as { message: string }).message).toMatch(/statement was cancelled on the database server/);
    } finally {
      await holder.query("rollback").catch(() => undefined);
      await holder.end();
    }
  });
});

describe.skipIf(!onPostgres)("a store opened with a statement timeout (PostgreSQL)", () => {
  it("migrates without it, then lends its connection with it", async () => {
    const fresh = await freshStoreOptions();
    if (fresh.store.kind !== "postgres") throw new Error("expected PostgreSQL");
    // One connection: the migration's is the one lent afterwards.
    const store = await openDatabase({ ...fresh.store, poolSize: 1, statementTimeoutMs: 250 }, { projects }, { folder: "lib/gateway/store/migrations", lockId: 727_411_099 });
    try {
      const pool = (store.db as unknown as { $client: pg.Pool }).$client;
      expect((await pool.query<{ statement_timeout: string }>("show statement_timeout")).rows[0]!.statement_timeout).toBe("250ms");
      await expect(pool.query("select pg_sleep(1)")).rejects.toMatchObject({ code: "57014" });
    } finally {
      await store.close();
      await fresh.drop();
    }
  });
});
