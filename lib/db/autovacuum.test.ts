import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { dueTables, startAutovacuum, vacuumDue } from "./autovacuum";
import { StoreChanges, watchPglite } from "./changes";

/** What the server's statistics say of a table: its row estimate and how often it was vacuumed and analyzed. */
async function stats(client: PGlite, table: string) {
  const { rows } = await client.query<{ reltuples: number; vacuums: number; analyzes: number }>(
    `select c.reltuples::float8 as reltuples, s.vacuum_count::int as vacuums, s.analyze_count::int as analyzes
     from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = $1`,
    [table],
  );
  return rows[0]!;
}

describe("autovacuum on PGlite", () => {
  let client: PGlite;
  beforeAll(async () => {
    client = await PGlite.create();
  });
  afterAll(() => client.close());
  // New tables for each test: their statistics start from nothing.
  beforeEach(async () => {
    await client.exec(`
      drop schema if exists public cascade;
      drop schema if exists "odd schema" cascade;
      create schema public;
      create table busy (id int primary key, v text);
      create table quiet (id int primary key);
      insert into busy select g, 'x' from generate_series(1, 2000) g;
      insert into quiet values (1), (2);`);
  });

  it("finds the tables past PostgreSQL's thresholds, and only those", async () => {
    // 2,000 rows into a table never analyzed: past both the insert threshold (1,000) and the analyze one (50).
    expect(await dueTables(client)).toEqual([{ name: "public.busy", vacuum: true, analyze: true }]);
  });

  it("vacuums and analyzes them, then finds nothing due until enough changes again", async () => {
    expect((await vacuumDue(client)).map((t) => t.name)).toEqual(["public.busy"]);
    expect(await stats(client, "busy")).toEqual({ reltuples: 2000, vacuums: 1, analyzes: 1 });
    expect(await stats(client, "quiet")).toMatchObject({ vacuums: 0, analyzes: 0 });
    expect(await dueTables(client)).toEqual([]);

    // 200 changed rows of 2,000: under the analyze threshold (50 + 10 % = 250); 100 more are past it.
    await client.exec("update busy set v = 'y' where id <= 200");
    expect(await dueTables(client)).toEqual([]);
    await client.exec("update busy set v = 'z' where id > 1900");
    // 300 dead rows: under the vacuum threshold (50 + 20 % = 450), so an analyze only.
    expect(await dueTables(client)).toEqual([{ name: "public.busy", vacuum: false, analyze: true }]);
    await vacuumDue(client);
    expect(await stats(client, "busy")).toMatchObject({ vacuums: 1, analyzes: 2 });

    await client.exec("delete from busy where id <= 500");
    expect(await dueTables(client)).toEqual([{ name: "public.busy", vacuum: true, analyze: true }]);
  });

  it("names tables as identifiers, whatever their names hold", async () => {
    await client.exec(`create schema "odd schema"; create table "odd schema"."Mixed ""Case"" table" (id int); insert into "odd schema"."Mixed ""Case"" table" select generate_series(1, 100)`);
    const due = await vacuumDue(client);
    expect(due.map((t) => t.name)).toContain(`"odd schema"."Mixed ""Case"" table"`);
    expect(await stats(client, 'Mixed "Case" table')).toMatchObject({ reltuples: 100, analyzes: 1 });
  });

  it("keeps the store's version: a vacuum or an analyze changes no row", async () => {
    const changes = new StoreChanges();
    watchPglite(client, changes);
    const before = changes.version;
    await vacuumDue(client);
    await client.query("ANALYZE quiet");
    expect(changes.version).toBe(before);
    await client.query("insert into quiet values (3)");
    expect(changes.version).toBeGreaterThan(before);
  });

  it("runs a pass every interval until stopped, and stop waits for the pass under way", async () => {
    const errors: unknown[] = [];
    const autovacuum = startAutovacuum(client, { intervalMs: 20, onError: (error) => errors.push(error) });
    await expect.poll(async () => (await stats(client, "busy")).analyzes, { timeout: 5_000 }).toBe(1);
    await client.exec("insert into quiet select generate_series(10, 2000)");
    await expect.poll(async () => (await stats(client, "quiet")).analyzes, { timeout: 5_000 }).toBe(1);
    await autovacuum.stop();
    // No pass after stop: the next due table stays as it is.
    await client.exec("delete from quiet");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await stats(client, "quiet")).toMatchObject({ vacuums: 1, analyzes: 1 });
    expect(await autovacuum.run()).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("reports a pass that fails and goes on with the next", async () => {
    const errors: unknown[] = [];
    // A store closed under the schedule: every pass fails.
    const closed = await PGlite.create();
    await closed.close();
    const autovacuum = startAutovacuum(closed, { intervalMs: 10, onError: (error) => errors.push(error) });
    await expect.poll(() => errors.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    await autovacuum.stop();
    expect(String(errors[0])).toMatch(/closed/i);
  });
});
