import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenForChanges, StoreChanges, watchPglite, watchPool } from "./changes";
import { fakeServer } from "./fake-server";

describe("watchPglite", () => {
  let client: PGlite;
  const changes = new StoreChanges();
  beforeAll(async () => {
    client = await PGlite.create();
    await client.exec("create table t (id int primary key); create table console_notes (id int)");
    watchPglite(client, changes);
  });
  afterAll(() => client.close());

  it("leaves the version alone for reads and for the console's own tables", async () => {
    const before = changes.version;
    await client.query("select * from t");
    await client.query("  SELECT pg_advisory_lock(1)");
    await client.query("select pg_advisory_unlock(1)");
    // A union, as Drizzle writes it: each select in parentheses.
    await client.query("(select id from t where id = $1) union all (select id from t where id = $2)", [1, 2]);
    // The console's own tables are never cached from.
    await client.query('insert into "console_notes" values (1)');
    await client.query('update "console_notes" set id = 2');
    await client.query('delete from "console_notes"');
    expect(changes.version).toBe(before);
  });

  it("moves it for every write, batch and transaction, failed ones too", async () => {
    let before = changes.version;
    await client.query("insert into t values ($1)", [1]);
    expect(changes.version).toBeGreaterThan(before);
    before = changes.version;
    await client.exec("update t set id = 2");
    expect(changes.version).toBeGreaterThan(before);
    before = changes.version;
    await client.transaction(async (tx) => {
      await tx.query("delete from t");
    });
    expect(changes.version).toBeGreaterThan(before);
    before = changes.version;
    await expect(client.query("insert into nowhere values (1)")).rejects.toThrow();
    expect(changes.version).toBeGreaterThan(before);
  });

  it("moves it for a select that calls one of the store's writing functions", async () => {
    await client.exec("create function scim_provision_person(v int) returns int language sql as 'insert into t values (v) returning id'");
    const before = changes.version;
    await client.query("select * from scim_provision_person($1)", [7]);
    expect(changes.version).toBeGreaterThan(before);
    const afterOne = changes.version;
    await client.query("(select * from scim_provision_person($1)) union all (select 0)", [8]);
    expect(changes.version).toBeGreaterThan(afterOne);
  });
});

describe("the change listener", () => {
  it("tries again when its client cannot even be made (a TLS file the URL names away for a moment)", async () => {
    const warnings: string[] = [];
    const changes = new StoreChanges();
    const listener = listenForChanges("postgres://u@127.0.0.1:1/db?sslrootcert=/nonexistent/ca.crt", changes, (_message, fields) => {
      warnings.push(String(fields.error));
    });
    try {
      // The first try, then the next after 250 ms: a listener that gave up (or a rejection no one heard) makes no second.
      for (let waited = 0; warnings.length < 2 && waited < 5_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      expect(warnings.length).toBeGreaterThanOrEqual(2);
      expect(warnings[0]).toMatch(/ENOENT/);
      expect(changes.coherent).toBe(false);
    } finally {
      await listener.close();
    }
  });
});

describe("the change listener's connection", () => {
  it("is given up on and made again when its session starts but it is never listening (its host silent from then on)", async () => {
    // The session starts, then no statement is answered: the listener's check and LISTEN wait on it. Until it listens no
    // heartbeat is sent, so only a deadline of its own can end it (and, through a host list, find its host silent).
    const server = await fakeServer(() => "mute");
    const warnings: string[] = [];
    const changes = new StoreChanges();
    const listener = listenForChanges(
      `postgres://u@127.0.0.1:${server.port}/db`,
      changes,
      (_message, fields) => warnings.push(String(fields.error)),
      { everyMs: 200, send: async () => undefined },
    );
    try {
      for (let waited = 0; server.connections() < 2 && waited < 5_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      expect(warnings[0]).toMatch(/not listening within 0.6 s/);
      expect(server.connections()).toBeGreaterThanOrEqual(2);
      expect(changes.coherent).toBe(false);
    } finally {
      await listener.close();
      await server.close();
    }
  });
});

describe("the SCIM tokens' version", () => {
  let client: PGlite;
  const changes = new StoreChanges();
  beforeAll(async () => {
    client = await PGlite.create();
    await client.exec(`create table scim_tokens (id int); create table scim_integrations (id int); create table organizations (id int);
      create table memberships (id int); create table audit_log (id int)`);
    watchPglite(client, changes);
  });
  afterAll(() => client.close());

  it("stays for writes of other tables, alone or in a transaction, and for the provisioning function", async () => {
    await client.exec("create function scim_provision_person(v int) returns int language sql as 'insert into memberships values (v) returning id'");
    const before = changes.scimTokensVersion;
    const all = changes.version;
    await client.query('insert into "memberships" ("id") values ($1)', [1]);
    await client.query('update "memberships" set "id" = 2');
    await client.query("select * from scim_provision_person($1)", [3]);
    await client.transaction(async (tx) => {
      await tx.query('insert into "memberships" values (4)');
      await tx.query('insert into "audit_log" values (4)');
      await tx.query("select count(*) from scim_tokens");
    });
    expect(changes.version).toBe(all + 4);
    expect(changes.scimTokensVersion).toBe(before);
  });

  it.each([
    ['delete from "scim_tokens" where "id" = 1', "a token deleted"],
    ['update "scim_integrations" set "id" = 2', "an integration changed"],
    ['delete from "organizations"', "an organization deleted (its tokens go by cascade)"],
    ["with gone as (delete from memberships returning id) delete from scim_tokens", "a statement it cannot read"],
    ["insert into memberships values (1); delete from scim_tokens", "several statements"],
    ["truncate scim_tokens", "a truncate"],
    ["update only scim_tokens set id = 4", "an update of the table only"],
    ["select 1; delete from scim_tokens", "a read followed by a write"],
  ])("moves for %s (%s)", async (text) => {
    const before = changes.scimTokensVersion;
    await client.exec(text);
    expect(changes.scimTokensVersion).toBe(before + 1);
  });

  it("moves for a transaction that writes a token table or runs a statement it cannot read", async () => {
    let before = changes.scimTokensVersion;
    await client.transaction(async (tx) => {
      await tx.query('insert into "memberships" values (5)');
      await tx.query('update "scim_tokens" set "id" = 3');
    });
    expect(changes.scimTokensVersion).toBe(before + 1);
    before = changes.scimTokensVersion;
    await client.transaction(async (tx) => {
      await tx.exec("insert into memberships values (6); insert into memberships values (7)");
    });
    expect(changes.scimTokensVersion).toBe(before + 1);
  });

  it("moves for other processes' notices naming a token table, and for notices it cannot read", () => {
    const before = changes.scimTokensVersion;
    changes.changed(["memberships"]);
    expect(changes.scimTokensVersion).toBe(before);
    changes.changed(["scim_integrations"]);
    changes.changed();
    expect(changes.scimTokensVersion).toBe(before + 2);
  });
});

const postgres = process.env.TEST_DATABASE_URL;

describe.skipIf(!postgres)("watchPool: transactions on PostgreSQL", () => {
  const changes = new StoreChanges();
  const schema = `changes_${randomBytes(4).toString("hex")}`;
  let pool: pg.Pool;
  let db: NodePgDatabase;
  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: postgres });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    pool = new pg.Pool({ connectionString: postgres, max: 3, options: `-c search_path=${schema}` });
    watchPool(pool, changes);
    await pool.query("create table scim_tokens (id int); create table memberships (id int); create table audit_log (id int)");
    db = drizzle(pool);
  });
  afterAll(async () => {
    await pool?.query(`drop schema ${schema} cascade`);
    await pool?.end();
  });

  it("keeps the tokens' version through transactions that write other tables, savepoints included", async () => {
    const before = changes.scimTokensVersion;
    const all = changes.version;
    await db.transaction(async (tx) => {
      await tx.execute(sql`insert into memberships values (1)`);
      await tx.transaction(async (inner) => {
        await inner.execute(sql`insert into audit_log values (1)`);
      });
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.execute(sql`insert into memberships values (2)`);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(changes.scimTokensVersion).toBe(before);
    // Each write when it ends, and each transaction's end once more: other connections see the rows only then.
    expect(changes.version).toBeGreaterThanOrEqual(all + 5);
  });

  it("moves the tokens' version at the commit of a transaction that wrote a token table", async () => {
    const client = await pool.connect();
    try {
      await client.query("begin");
      await client.query("insert into scim_tokens values (1)");
      await client.query("insert into memberships values (3)");
      // A lookup from another connection now still reads the token tables as they were, and may be cached at this version.
      const beforeCommit = changes.scimTokensVersion;
      await client.query("commit");
      expect(changes.scimTokensVersion).toBe(beforeCommit + 1);
    } finally {
      client.release();
    }
  });

  it("moves the tokens' version at the commit of a transaction with a statement it cannot read, or of one it did not see begin", async () => {
    let before = changes.scimTokensVersion;
    await db.transaction(async (tx) => {
      await tx.execute(sql`with gone as (delete from memberships returning id) insert into audit_log select id from gone`);
    });
    expect(changes.scimTokensVersion).toBeGreaterThan(before);
    const client = await pool.connect();
    try {
      before = changes.scimTokensVersion;
      await client.query("commit");
      expect(changes.scimTokensVersion).toBe(before + 1);
    } finally {
      client.release();
    }
  });
});
