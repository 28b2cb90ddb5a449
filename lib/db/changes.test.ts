import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreChanges, watchPglite } from "./changes";

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
  });
});
