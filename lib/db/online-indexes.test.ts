import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { migrateDatabase, newerMigrationsApplied } from "./migrate";
import { buildOnlineIndexes, onlineIndexes, type BuildOptions, type Note, type OnlineBuild, type OnlineIndex } from "./online-indexes";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A migrations folder whose online/ holds the given files. */
function folderWith(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "stratus-online-"));
  dirs.push(dir);
  mkdirSync(path.join(dir, "online"));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, "online", name), text);
  return dir;
}

describe("online index files", () => {
  it("reads each statement in file order, comments aside", () => {
    const folder = folderWith({
      "0002_b.sql": 'CREATE INDEX CONCURRENTLY IF NOT EXISTS "b_idx" ON "b" ("x");\n',
      "0001_a.sql":
        '-- why these exist\nCREATE INDEX CONCURRENTLY IF NOT EXISTS "a1_idx" ON "a" USING btree ("o",lower("v"));--> statement-breakpoint\n' +
        '-- and this one\nCREATE INDEX CONCURRENTLY IF NOT EXISTS "a2_idx" ON "a" ("w");--> statement-breakpoint\n',
    });
    expect(onlineIndexes(folder).map((i) => [i.file, i.name, i.table])).toEqual([
      ["0001_a.sql", "a1_idx", "a"],
      ["0001_a.sql", "a2_idx", "a"],
      ["0002_b.sql", "b_idx", "b"],
    ]);
    expect(onlineIndexes(folder)[0]!.statement).toBe('CREATE INDEX CONCURRENTLY IF NOT EXISTS "a1_idx" ON "a" USING btree ("o",lower("v"));');
  });

  it.each([
    ["a statement of another kind", 'ALTER TABLE "a" ADD COLUMN "x" text;'],
    ["an index built in a transaction's way", 'CREATE INDEX "a_idx" ON "a" ("x");'],
    ["two statements in one", 'CREATE INDEX CONCURRENTLY IF NOT EXISTS "a_idx" ON "a" ("x"); DROP TABLE "a";'],
  ])("refuses %s, naming the file", (_, text) => {
    expect(() => onlineIndexes(folderWith({ "0001_bad.sql": text }))).toThrow(/0001_bad\.sql: an online migration holds only CREATE INDEX CONCURRENTLY/);
  });

  it("a folder without online/ has none", () => {
    expect(onlineIndexes(mkdtempSync(path.join(tmpdir(), "stratus-online-none-")))).toEqual([]);
  });
});

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(!onPostgres)("building online indexes on PostgreSQL", { timeout: 60_000 }, () => {
  const LOCK = 991_001;
  let drop: () => Promise<void>;
  let url: string;
  let pool: pg.Pool;
  let notes: Array<[string, string, Record<string, unknown>]>;
  const note: Note = (level, message, fields) => void notes.push([level, message, fields]);
  const clients: pg.Client[] = [];
  const builds: OnlineBuild[] = [];

  /** A build, stopped after the test with its tries to come. */
  async function begin(indexes: OnlineIndex[], opts: BuildOptions): Promise<OnlineBuild> {
    const build = await buildOnlineIndexes(indexes, opts);
    builds.push(build);
    return build;
  }

  async function client(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: url });
    c.on("error", () => undefined);
    await c.connect();
    clients.push(c);
    return c;
  }

  const options = () => ({
    connect: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      return c;
    },
    pool,
    lockId: LOCK,
    note,
  });

  /** `work`, or a failure after `ms`: a wait that would otherwise last as long as the test. */
  const within = <T>(ms: number, work: Promise<T>) =>
    Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms))]);

  /** Whether an index exists, and then whether it is valid. */
  async function state(name: string): Promise<"absent" | "valid" | "invalid"> {
    const { rows } = await pool.query<{ valid: boolean }>("select indisvalid as valid from pg_index where indexrelid = to_regclass($1)", [name]);
    return rows[0] ? (rows[0].valid ? "valid" : "invalid") : "absent";
  }

  /** Until the build's statement waits on a lock (here: the open transaction of a writer). */
  async function waitingBuild(): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const { rows } = await pool.query("select 1 from pg_stat_activity where datname = current_database() and query like 'CREATE INDEX%' and wait_event_type = 'Lock'");
      if (rows.length > 0) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error("the build never waited on the open transaction");
  }

  /** A new database on the test server, for one test. */
  async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
    const admin = process.env.TEST_DATABASE_URL!;
    const name = `stratus_online_${randomBytes(6).toString("hex")}`;
    const run = async (statement: string) => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(statement).finally(() => c.end());
    };
    await run(`create database ${name}`);
    const at = new URL(admin);
    at.pathname = `/${name}`;
    return { url: at.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
  }

  beforeEach(async () => {
    notes = [];
    ({ url, drop } = await freshDatabase());
    pool = new pg.Pool({ connectionString: url, max: 4 });
    // The database is dropped (with force) as soon as the pool has let its clients go: one still closing is told so.
    pool.on("error", () => undefined);
    pool.on("connect", (c) => c.on("error", () => undefined));
    await pool.query(`create table "t" ("id" serial primary key, "v" int); insert into "t" ("v") select g % 100 from generate_series(1, 20000) g`);
  });

  afterEach(async () => {
    await Promise.all(builds.splice(0).map((b) => b.stop()));
    await Promise.all(clients.splice(0).map((c) => c.end().catch(() => undefined)));
    await pool.end();
    await drop();
  });

  const T_V = { "0001_t.sql": '-- on t\nCREATE INDEX CONCURRENTLY IF NOT EXISTS "t_v_idx" ON "t" ("v");\n' };

  it("lets writes go on while it builds, then leaves a valid index", async () => {
    // A writer's transaction is open: the build must wait for it, and a plain CREATE INDEX
    // waiting so would hold up every other write to the table behind it.
    const holder = await client();
    await holder.query("begin");
    await holder.query(`insert into "t" ("v") values (1)`);
    const build = await begin(onlineIndexes(folderWith(T_V)), { ...options(), waitBelowBytes: 0 });
    expect(build.background).toBe(true);
    await waitingBuild();

    const writer = await client();
    await writer.query("set lock_timeout = '2s'");
    await expect(writer.query(`insert into "t" ("v") values (2) returning "id"`)).resolves.toMatchObject({ rowCount: 1 });

    await holder.query("commit");
    await build.done;
    expect(await state("t_v_idx")).toBe("valid");
    expect(notes.map(([, message]) => message)).toEqual(["online indexes: building, writes go on meanwhile", "online indexes: built"]);
    // Built: the next start has nothing to do and takes no lock.
    const again = await begin(onlineIndexes(folderWith(T_V)), { ...options(), waitBelowBytes: 0 });
    expect(again.background).toBe(false);
    expect(notes).toHaveLength(2);
  });

  it("waits for the build when the tables are small", async () => {
    const build = await begin(onlineIndexes(folderWith(T_V)), options());
    expect(build.background).toBe(false);
    expect(await state("t_v_idx")).toBe("valid");
    // Part of opening the store: nothing to tell.
    expect(notes).toEqual([]);
  });

  it("waits a bounded time for a build over small tables that waits on others, then goes on without it", async () => {
    // One of the two is built already: the note names the one still building.
    await pool.query(`create index "t_id_v_idx" on "t" ("id", "v")`);
    const holder = await client();
    await holder.query("begin");
    await holder.query(`insert into "t" ("v") values (1)`);
    const folder = folderWith({ ...T_V, "0002_t.sql": 'CREATE INDEX CONCURRENTLY IF NOT EXISTS "t_id_v_idx" ON "t" ("id", "v");' });
    const build = await within(10_000, begin(onlineIndexes(folder), { ...options(), waitAtMostMs: 300 }));
    expect(build.background).toBe(true);
    expect(notes).toEqual([["info", "online indexes: still building after 300 ms; the store opens meanwhile", { indexes: ["t_v_idx"] }]]);
    await holder.query("commit");
    await build.done;
    expect(await state("t_v_idx")).toBe("valid");
    // The store served meanwhile: the build's end is told.
    expect(notes.at(-1)?.[1]).toBe("online indexes: built");
  });

  it("drops an index a build left invalid and builds it again", async () => {
    await pool.query(`create table "d" ("v" int); insert into "d" values (1), (1)`);
    // A concurrent unique build over duplicates fails and leaves its index behind, invalid.
    await expect(pool.query(`create unique index concurrently "d_v_idx" on "d" ("v")`)).rejects.toMatchObject({ code: "23505" }); // unique_violation
    expect(await state("d_v_idx")).toBe("invalid");

    await begin(onlineIndexes(folderWith({ "0001_d.sql": 'CREATE INDEX CONCURRENTLY IF NOT EXISTS "d_v_idx" ON "d" ("v");' })), options());
    expect(await state("d_v_idx")).toBe("valid");
    const { rows } = await pool.query<{ unique: boolean }>("select indisunique as unique from pg_index where indexrelid = to_regclass('d_v_idx')");
    expect(rows[0]!.unique).toBe(false);
    expect(notes[0]).toEqual(["warn", "online indexes: dropping an index a build left unfinished", { index: "d_v_idx" }]);
  });

  it.each([
    ["a replica already building it", "select pg_advisory_lock($1::int, 1)"],
    ["a replica applying migrations", "select pg_advisory_lock($1::bigint)"],
  ])("leaves the build to %s", async (_, lock) => {
    const other = await client();
    await other.query(lock, [LOCK]);
    const build = await begin(onlineIndexes(folderWith(T_V)), options());
    await build.done;
    expect(await state("t_v_idx")).toBe("absent");
    expect(notes).toEqual([["info", "online indexes: left to the replica building them or applying migrations; tried again later", { indexes: ["t_v_idx"], retryInMs: 600_000 }]]);
  });

  it("stops a build when the store closes, and the next start builds the index", async () => {
    const holder = await client();
    await holder.query("begin");
    await holder.query(`insert into "t" ("v") values (1)`);
    const build = await begin(onlineIndexes(folderWith(T_V)), { ...options(), waitBelowBytes: 0 });
    await waitingBuild();
    await build.stop();
    expect(await state("t_v_idx")).not.toBe("valid");
    await holder.query("rollback");
    // Cancelled on purpose: no failure noted.
    expect(notes.map(([level]) => level)).not.toContain("warn");

    await begin(onlineIndexes(folderWith(T_V)), options());
    expect(await state("t_v_idx")).toBe("valid");
  });

  /** A migrations folder of one migration (creating table "m"), with its own bookkeeping table. */
  function oneMigration() {
    const folder = folderWith(T_V);
    mkdirSync(path.join(folder, "meta"));
    writeFileSync(path.join(folder, "0000_m.sql"), 'CREATE TABLE "m" ("x" int);');
    writeFileSync(
      path.join(folder, "meta/_journal.json"),
      JSON.stringify({ version: "7", dialect: "postgresql", entries: [{ idx: 0, version: "7", when: 1_700_000_000_000, tag: "0000_m", breakpoints: true }] }),
    );
    return { folder, table: "__online_test_migrations", lockId: LOCK };
  }

  it("gives way to a replica with migrations to apply, which neither waits for it nor is held up behind it", async () => {
    const holder = await client();
    await holder.query("begin");
    await holder.query(`insert into "t" ("v") values (1)`);
    const migrations = oneMigration();
    const build = await begin(onlineIndexes(migrations.folder), { ...options(), waitBelowBytes: 0 });
    await waitingBuild();

    await within(10_000, migrateDatabase(drizzle({ client: pool }), "postgres", migrations));
    await expect(pool.query(`select count(*) from "m"`)).resolves.toMatchObject({ rows: [{ count: "0" }] });
    await within(10_000, build.done);
    expect(await state("t_v_idx")).not.toBe("valid");
    expect(notes.at(-1)?.[1]).toBe("online indexes: a build ended early; tried again later");
    await holder.query("rollback");
  });

  it("goes on while a replica with nothing to migrate starts", async () => {
    const migrations = oneMigration();
    await migrateDatabase(drizzle({ client: pool }), "postgres", migrations);
    const holder = await client();
    await holder.query("begin");
    await holder.query(`insert into "t" ("v") values (1)`);
    const build = await begin(onlineIndexes(migrations.folder), { ...options(), waitBelowBytes: 0 });
    await waitingBuild();

    await within(10_000, migrateDatabase(drizzle({ client: pool }), "postgres", migrations));
    await holder.query("commit");
    await build.done;
    expect(await state("t_v_idx")).toBe("valid");
  });

  it("a replica waiting to migrate goes on, without the lock, once another replica has applied the migrations", async () => {
    const migrations = oneMigration();
    // A build's session holds the migrations' lock shared (and the builds' own) for as long as it
    // lives; a cancel stops its statement, not the session, so the lock stays held throughout.
    const build = await client();
    await build.query("select pg_advisory_lock_shared($1::bigint), pg_advisory_lock($1::int, 1)", [LOCK]);
    const statement = build.query("select pg_sleep(30)").then(
      () => "finished",
      (error: { code?: string }) => error.code,
    );
    const migrating = migrateDatabase(drizzle({ client: pool }), "postgres", migrations);
    // With a migration to apply, the replica cancels the build's statement, then waits for the lock.
    expect(await within(5_000, statement)).toBe("57014");
    // Another replica applies the migrations meanwhile (here Drizzle's migrator alone, without the lock).
    await migrate(drizzle({ client: pool }), { migrationsFolder: migrations.folder, migrationsTable: migrations.table });
    // The waiting replica finds nothing left at its next turn and goes on: it could never have had the
    // lock, which the build's session still holds shared.
    await within(5_000, migrating);
    const { rows } = await pool.query<{ n: number }>("select count(*)::int as n from pg_locks where locktype = 'advisory' and mode = 'ShareLock' and granted and objid = $1", [LOCK]);
    expect(rows[0]!.n).toBe(1);
  });

  /** Until `name` is valid, or a failure after `ms`. */
  async function validWithin(name: string, ms: number): Promise<void> {
    const end = Date.now() + ms;
    while ((await state(name)) !== "valid") {
      if (Date.now() > end) throw new Error(`${name} not valid after ${ms} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it("tries again after giving way, and builds what the other replica's build left unbuilt", async () => {
    const other = await client();
    await other.query("select pg_advisory_lock($1::int, 1)", [LOCK]);
    const build = await begin(onlineIndexes(folderWith(T_V)), { ...options(), retryEveryMs: 150 });
    await build.done;
    // Tries meanwhile, while the other replica still holds the builds' lock, give way quietly.
    await new Promise((r) => setTimeout(r, 600));
    expect(await state("t_v_idx")).toBe("absent");
    // The other replica went away without building.
    await other.query("select pg_advisory_unlock($1::int, 1)", [LOCK]);
    await validWithin("t_v_idx", 10_000);
    expect(notes.map(([, message]) => message)).toEqual([
      "online indexes: left to the replica building them or applying migrations; tried again later",
      "online indexes: building, writes go on meanwhile",
      "online indexes: built",
    ]);
  });

  it("tries again after a failed build, and builds once the schema allows it", async () => {
    // A column the statement names does not exist yet: the build fails, the next try succeeds.
    const folder = folderWith({ "0001_w.sql": 'CREATE INDEX CONCURRENTLY IF NOT EXISTS "t_w_idx" ON "t" ("w");' });
    const build = await begin(onlineIndexes(folder), { ...options(), retryEveryMs: 150 });
    await build.done;
    expect(notes[0]?.slice(0, 2)).toEqual(["warn", "online indexes: a build ended early; tried again later"]);
    // Each failure waits twice as long as the one before for the next try.
    const failures = () => notes.filter(([level]) => level === "warn");
    await expect.poll(() => failures().length, { timeout: 5_000 }).toBeGreaterThanOrEqual(3);
    expect(failures().slice(0, 3).map(([, , fields]) => fields.retryInMs)).toEqual([150, 300, 600]);
    expect(await state("t_w_idx")).toBe("absent");
    await pool.query(`alter table "t" add column "w" int`);
    await validWithin("t_w_idx", 10_000);
  });

  it("tries no more once stopped", async () => {
    const other = await client();
    await other.query("select pg_advisory_lock($1::int, 1)", [LOCK]);
    const build = await begin(onlineIndexes(folderWith(T_V)), { ...options(), retryEveryMs: 150 });
    await build.done;
    await build.stop();
    await other.query("select pg_advisory_unlock($1::int, 1)", [LOCK]);
    await new Promise((r) => setTimeout(r, 800));
    expect(await state("t_v_idx")).toBe("absent");
  });

  it("tries no more once a newer version's migrations are applied", async () => {
    const migrations = oneMigration();
    await migrateDatabase(drizzle({ client: pool }), "postgres", migrations);
    const other = await client();
    await other.query("select pg_advisory_lock($1::int, 1)", [LOCK]);
    const superseded = (c: pg.ClientBase) => newerMigrationsApplied(c, migrations);
    const build = await begin(onlineIndexes(migrations.folder), { ...options(), retryEveryMs: 150, superseded });
    await build.done;
    // A newer version migrates (its journal goes past this one's), and the other replica's build ends.
    await pool.query(`insert into drizzle."${migrations.table}" (hash, created_at) values ('newer', $1)`, [1_800_000_000_000]);
    await other.query("select pg_advisory_unlock($1::int, 1)", [LOCK]);
    await expect.poll(() => notes.at(-1)?.[1], { timeout: 5_000 }).toBe("online indexes: a newer version's migrations are applied; its replicas build the indexes, not this one");
    await new Promise((r) => setTimeout(r, 600));
    expect(await state("t_v_idx")).toBe("absent");
  });

  it("stops a try begun after the store opened", async () => {
    const other = await client();
    await other.query("select pg_advisory_lock($1::int, 1)", [LOCK]);
    const build = await begin(onlineIndexes(folderWith(T_V)), { ...options(), retryEveryMs: 150 });
    await build.done;
    // A writer's open transaction keeps the next try's build waiting, where a stop must cancel it.
    const holder = await client();
    await holder.query("begin");
    await holder.query(`insert into "t" ("v") values (1)`);
    await other.query("select pg_advisory_unlock($1::int, 1)", [LOCK]);
    await waitingBuild();
    await within(10_000, build.stop());
    await holder.query("rollback");
    expect(await state("t_v_idx")).not.toBe("valid");
    const { rows } = await pool.query("select 1 from pg_stat_activity where datname = current_database() and query like 'CREATE INDEX%' and state = 'active'");
    expect(rows).toEqual([]);
    expect(notes.map(([level]) => level)).not.toContain("warn");
  });
});
