import { randomBytes } from "node:crypto";
import { eq, gt, sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../logger";
import { startGateway, type Gateway } from "../runtime";
import { seedDemo } from "../seed";
import { freshStoreOptions } from "../testing";
import { resultRows, type StoreOptions } from "./client";
import { usageOptions } from "./queries/usage";
import { dailyCostsBody, keptUsageOptions, usageByPeriodBody, usageStamp, type BodyParts } from "./queries/usage-days";
import { usageRecords } from "./schema";

/** A body as the route answers it (text, or bytes in UTF-8 in parts) read as text. */
const utf8 = (body: string | BodyParts): string => (typeof body === "string" ? body : Buffer.concat(body.parts).toString("utf8"));

let gateway: Gateway;
let drop: () => Promise<void>;
let storeOptions: StoreOptions;

beforeAll(async () => {
  const fresh = await freshStoreOptions();
  drop = fresh.drop;
  storeOptions = fresh.store;
  const masterKey = randomBytes(32);
  gateway = await startGateway({ store: fresh.store, masterKey, seed: false, logger: createLogger("silent"), dataDir: "/nonexistent" });
  await seedDemo(gateway.store.db, masterKey);
});

afterAll(async () => {
  await gateway?.close();
  await drop?.();
});

/** The charts' answers as the gateway gives them, and as summing usage_records now gives them. */
async function charts() {
  const db = gateway.store.db;
  const orgs = resultRows<{ id: string }>(await db.execute(sql`select distinct organization_id as id from usage_records order by 1`)).map((r) => r.id);
  const range = { startDate: "2000-01-01", endDate: "2100-01-01" };
  const given = [];
  const summed = [];
  for (const org of orgs) {
    given.push({ billing: JSON.parse(utf8(await dailyCostsBody(db, org, range))), usage: JSON.parse(utf8(await usageByPeriodBody(db, org, range, "daily"))) });
    const billing = resultRows<Record<string, string>>(
      await db.execute(sql`select billable_metric, sum(cost)::float8 as cost, to_char(usage_date, 'YYYY-MM-DD') as date, project_id, sum(quantity)::float8 as quantity,
          region, resource_type, (case when min(unit_price) = max(unit_price) then min(unit_price)
            else round(sum(cost) / nullif(sum(quantity), 0), 6) end)::float8 as unit_price
        from usage_records where organization_id = ${org}
        group by usage_date, project_id, resource_type, region, billable_metric order by usage_date, project_id, resource_type, region, billable_metric`),
    );
    const usage = resultRows<Record<string, string>>(
      await db.execute(sql`select billable_metric, to_char(usage_date, 'YYYY-MM-DD') as date, project_id, sum(quantity)::float8 as quantity, region,
          coalesce(reservation_id, '') as reservation_id, resource_type
        from usage_records where organization_id = ${org}
        group by usage_date, project_id, resource_type, region, billable_metric, coalesce(reservation_id, '')
        order by usage_date, project_id, resource_type, region, billable_metric, coalesce(reservation_id, '')`),
    );
    const [updated] = resultRows<{ at: string | null }>(
      await db.execute(sql`select to_char(max(recorded_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at from usage_records where organization_id = ${org}`),
    );
    summed.push({ billing: { data: billing, last_updated: updated?.at ?? "" }, usage: { items: usage } });
  }
  return { given, summed };
}

/** usage_daily as it is, and as summing usage_records now gives it: they must be equal. */
async function both() {
  const db = gateway.store.db;
  const kept = resultRows<Record<string, string>>(
    await db.execute(sql`select organization_id, usage_date::text, project_id, resource_type, region, billable_metric, reservation_id, product_line, project_name,
        quantity::text, cost::text, min_unit_price::text, max_unit_price::text, records::text, recorded_at::text
      from usage_daily order by 1, 2, 3, 4, 5, 6, 7, 8, 9`),
  );
  const summed = resultRows<Record<string, string>>(
    await db.execute(sql`select organization_id, usage_date::text, project_id, resource_type, region, billable_metric,
        coalesce(reservation_id, '') as reservation_id, product_line, project_name, sum(quantity)::text as quantity, sum(cost)::text as cost, min(unit_price)::text as min_unit_price,
        max(unit_price)::text as max_unit_price, count(*)::text as records, max(recorded_at)::text as recorded_at
      from usage_records group by 1, 2, 3, 4, 5, 6, 7, 8, 9 order by 1, 2, 3, 4, 5, 6, 7, 8, 9`),
  );
  return { kept, summed };
}

/**
 * Usage options as the billing and usage pages get them, and as the rows give them, for each
 * organization: over all days and over a month, of all usage and of usage on demand (merged from
 * the days' rendered options), and for a selection by project, resource type or region (from the
 * daily sums).
 */
async function options() {
  const db = gateway.store.db;
  const orgs = resultRows<{ id: string; first: string; project: string; type: string; region: string }>(
    await db.execute(sql`select organization_id as id, min(usage_date)::text as first, max(project_id) as project,
        (array_agg(resource_type order by usage_date, seq))[1] as type, max(region) as region
      from usage_records group by 1 order by 1`),
  );
  const given = [];
  const summed = [];
  for (const org of orgs) {
    const month = { startDate: org.first, endDate: new Date(Date.parse(org.first) + 30 * 86_400_000).toISOString().slice(0, 10) };
    // Each selects some of the organization's usage (a value of its own rows), the last with a value it has none of.
    const selections = [{ projects: [org.project] }, { ...month, resourceTypes: [org.type] }, { regions: [org.region, "nowhere-at-all"], withoutReservations: true }];
    for (const f of [{}, month, { withoutReservations: true }, { ...month, withoutReservations: true }, ...selections]) {
      given.push(await keptUsageOptions(db, gateway.deps.reads, org.id, f));
      const { resources, ...fromRows } = await usageOptions(db, org.id, f, { withResources: true });
      if (!("withoutReservations" in f)) expect(resources?.length).toBeGreaterThan(0);
      summed.push(fromRows);
    }
  }
  return { given, summed };
}

describe("usageStamp, what a range's usage is now", () => {
  it("stays while the range's usage stays, and moves with a change to any day of it, a column the sums do not keep included", async () => {
    const db = gateway.store.db;
    const [first] = await db.select().from(usageRecords).orderBy(usageRecords.seq).limit(1);
    const [later] = await db.select().from(usageRecords).where(gt(usageRecords.usageDate, first!.usageDate)).orderBy(usageRecords.seq).limit(1);
    if (!first || !later) throw new Error("the demo has no usage on two days");
    const org = first.organizationId;
    const day = { startDate: first.usageDate, endDate: first.usageDate };
    const stamps = async () => [await usageStamp(db, org, day), await usageStamp(db, org, {})];
    const [dayBefore, allBefore] = await stamps();
    expect(await stamps()).toEqual([dayBefore, allBefore]);

    await db.update(usageRecords).set({ productLine: "stamp-test" }).where(eq(usageRecords.seq, first.seq));
    const [dayAfter, allAfter] = await stamps();
    expect(dayAfter).not.toBe(dayBefore);
    expect(allAfter).not.toBe(allBefore);

    // A day outside the range leaves the range's stamp as it was.
    await db.update(usageRecords).set({ productLine: "stamp-test" }).where(eq(usageRecords.seq, later.seq));
    expect(await usageStamp(db, org, day)).toBe(dayAfter);
    expect(await usageStamp(db, org, {})).not.toBe(allAfter);

    await db.update(usageRecords).set({ productLine: first.productLine }).where(eq(usageRecords.seq, first.seq));
    await db.update(usageRecords).set({ productLine: later.productLine }).where(eq(usageRecords.seq, later.seq));
  });
});

/** A usage row's columns but its id, cost (computed) and time recorded: a row to insert again, changed. */
function copyOf(row: typeof usageRecords.$inferSelect) {
  return {
    organizationId: row.organizationId,
    projectId: row.projectId,
    projectName: row.projectName,
    usageDate: row.usageDate,
    region: row.region,
    resourceType: row.resourceType,
    productLine: row.productLine,
    resourceName: row.resourceName,
    billableMetric: row.billableMetric,
    quantity: row.quantity,
    unitPrice: row.unitPrice,
    reservationId: row.reservationId,
  };
}

/** Until a session is waiting for a lock (PostgreSQL's pg_stat_activity), or 10 s. */
async function waitingForLock(observer: pg.Client, pid: number): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await observer.query<{ wait: string | null }>("select wait_event_type || ':' || wait_event as wait from pg_stat_activity where pid = $1", [pid]);
    if (rows[0]?.wait?.startsWith("Lock:")) return rows[0].wait;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`session ${pid} never waited for a lock`);
}

// Two replicas (or two connections of one) writing usage of the same organization and day. PGlite has one connection.
describe.skipIf(!process.env.TEST_DATABASE_URL)("usage of one day written by two transactions at once (PostgreSQL)", () => {
  it.each([
    ["a day without usage yet", "2031-01-01"],
    ["a day with usage already", "2031-01-02"],
  ])("sums and renders both on %s: the second waits for the first, then adds to what it committed", { timeout: 60_000 }, async (_case, day) => {
    if (storeOptions.kind !== "postgres") throw new Error("a PostgreSQL store was expected");
    const [first, second, observer] = [0, 1, 2].map(() => new pg.Client({ connectionString: storeOptions.kind === "postgres" ? storeOptions.url : "" }));
    await Promise.all([first!.connect(), second!.connect(), observer!.connect()]);
    const org = resultRows<{ id: string }>(await gateway.store.db.execute(sql`select organization_id as id from usage_records limit 1`))[0]!.id;
    const insert = (client: pg.Client, project: string) =>
      client.query(
        `insert into usage_records (organization_id, project_id, project_name, usage_date, region, resource_type, product_line, resource_id, resource_name, billable_metric, quantity, unit_price)
          values ($1, $2, $2, $3, 'test-region-1', 'vm', 'Compute', $2 || '-vm', $2 || '-vm', 'vcpu-hours', 2, 0.5)`,
        [org, project, day],
      );
    try {
      if (day === "2031-01-02") await insert(observer!, "concurrent-earlier");
      await first!.query("begin");
      await insert(first!, "concurrent-first");
      const secondPid = (await second!.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
      const secondWrite = insert(second!, "concurrent-second");
      // Caught here, judged after the commit: a failure is the test's answer, not an unhandled rejection.
      const settled = secondWrite.then(
        () => null,
        (error: unknown) => error,
      );
      await waitingForLock(observer!, secondPid);
      await first!.query("commit");
      expect(await settled).toBeNull();

      const { kept, summed } = await both();
      expect(kept).toEqual(summed);
      const ofDay = (rows: Array<Record<string, string>>) => rows.filter((r) => r.usage_date === day).map((r) => r.project_id);
      expect(ofDay(kept).sort()).toEqual(day === "2031-01-02" ? ["concurrent-earlier", "concurrent-first", "concurrent-second"] : ["concurrent-first", "concurrent-second"]);
      const dayOptions = await keptUsageOptions(gateway.store.db, gateway.deps.reads, org, { startDate: day, endDate: day });
      expect(dayOptions.projects).toEqual(ofDay(kept).sort());
      const c = await charts();
      expect(c.given).toEqual(c.summed);
    } finally {
      await first!.query("rollback").catch(() => undefined);
      await Promise.all([first!.end(), second!.end(), observer!.end()]);
    }
  });
});

describe("the billing chart's answer", () => {
  it("gives the time a day was recorded with the points read of it, when the day is written between the answer's two reads", async () => {
    const db = gateway.store.db;
    const [row] = await db.select().from(usageRecords).orderBy(usageRecords.seq).limit(1);
    if (!row) throw new Error("the demo has no usage");
    const copy = copyOf(row);
    const later = new Date("2099-01-01T00:00:00.000Z");
    // The store as the answer reads it: right after its first read (the days' versions), the day is written.
    let reads = 0;
    const racing = new Proxy(db, {
      get(target, name, receiver) {
        if (name !== "execute") return Reflect.get(target, name, receiver) as unknown;
        return async (query: Parameters<typeof db.execute>[0]) => {
          const result = await target.execute(query);
          if (++reads === 1) await target.insert(usageRecords).values({ ...copy, resourceId: "written-between", recordedAt: later });
          return result;
        };
      },
    });
    try {
      const range = { startDate: row.usageDate, endDate: row.usageDate };
      const answer = JSON.parse(utf8(await dailyCostsBody(racing, row.organizationId, range))) as { data: unknown[]; last_updated: string };
      expect(reads).toBe(2);
      const now = JSON.parse(utf8(await dailyCostsBody(db, row.organizationId, range))) as typeof answer;
      // The points are the day's as written (the second read's), and so is its time.
      expect(answer).toEqual(now);
      expect(answer.last_updated).toBe(later.toISOString());
    } finally {
      await db.delete(usageRecords).where(eq(usageRecords.resourceId, "written-between"));
    }
  });
});

describe("usage_daily, the daily sums the charts read", () => {
  it("holds the sums of the demo's usage", async () => {
    const { kept, summed } = await both();
    expect(summed.length).toBeGreaterThan(0);
    expect(kept).toEqual(summed);
    const c = await charts();
    expect(c.summed.length).toBeGreaterThan(0);
    expect(c.given).toEqual(c.summed);
  });

  // Sums every chart twice per step: about 25 s on a 2-core machine, so more than the default 30 s when the machine is busy.
  it("follows inserts into existing and new groups, updates that move rows between groups, and deletes", { timeout: 120_000 }, async () => {
    const db = gateway.store.db;
    const [row] = await db.select().from(usageRecords).orderBy(usageRecords.seq).limit(1);
    if (!row) throw new Error("the demo has no usage");
    const copy = copyOf(row);
    // The same group as an existing row (at another price), and a group of its own.
    await db.insert(usageRecords).values([
      { ...copy, resourceId: "extra-1", quantity: "3.500000", unitPrice: "9.990000" },
      { ...copy, resourceId: "extra-2", region: "nowhere-1", quantity: "1.000000" },
    ]);
    expect((await both()).kept).toEqual((await both()).summed);
    expect((await charts()).given).toEqual((await charts()).summed);
    const before = await options();
    expect(before.given).toEqual(before.summed);

    // A product line and a recorded name the day had not held, in a group the charts already show
    // (two daily sums, one chart point), of a project since deleted (named as its rows recorded it).
    await db.insert(usageRecords).values([
      { ...copy, resourceId: "extra-3", productLine: "another-line", quantity: "2.000000" },
      { ...copy, resourceId: "extra-4", projectId: "deleted-project", projectName: "Deleted one", quantity: "1.000000" },
      // Renamed that day: both name it as the greater.
      { ...copy, resourceId: "extra-5", projectId: "deleted-project", projectName: "Deleted one, renamed", quantity: "1.000000" },
      // Types whose order differs by code unit (JavaScript's default) and by code point (the store's "C"), and by case.
      { ...copy, resourceId: "extra-6", resourceType: "\u{1F5A5} desktop", quantity: "1.000000" },
      { ...copy, resourceId: "extra-7", resourceType: "\uFF21 full-width", quantity: "1.000000" },
      { ...copy, resourceId: "extra-8", resourceType: "ZZ upper", quantity: "1.000000" },
    ]);
    expect((await both()).kept).toEqual((await both()).summed);
    expect((await charts()).given).toEqual((await charts()).summed);
    const after = await options();
    expect(after.given).toEqual(after.summed);
    expect(after.given.some((o) => o.product_lines.includes("another-line"))).toBe(true);
    expect(after.given.some((o) => o.project_names["deleted-project"] === "Deleted one, renamed")).toBe(true);
    // U+005A, U+FF21, U+1F5A5: code point order (code units put the last, D83D DDA5 in UTF-16, first of the two).
    const added = ["\u{1F5A5} desktop", "\uFF21 full-width", "ZZ upper"];
    expect(after.given.find((o) => o.resource_types.includes("ZZ upper"))?.resource_types.filter((t) => added.includes(t))).toEqual(["ZZ upper", "\uFF21 full-width", "\u{1F5A5} desktop"]);

    // Into a reservation (another group), and to another day.
    await db.update(usageRecords).set({ reservationId: "res-1", quantity: "7.000000" }).where(eq(usageRecords.resourceId, "extra-1"));
    await db.update(usageRecords).set({ usageDate: "2020-01-01" }).where(eq(usageRecords.resourceId, "extra-2"));
    let { kept, summed } = await both();
    expect(kept).toEqual(summed);
    expect(kept.some((k) => k.reservation_id === "res-1")).toBe(true);
    let c = await charts();
    expect(c.given).toEqual(c.summed);
    expect(kept.some((k) => k.usage_date === "2020-01-01")).toBe(true);

    await db.delete(usageRecords).where(eq(usageRecords.resourceId, "extra-2"));
    await db.delete(usageRecords).where(eq(usageRecords.usageDate, row.usageDate));
    ({ kept, summed } = await both());
    expect(kept).toEqual(summed);
    expect(kept.some((k) => k.usage_date === "2020-01-01" || k.usage_date === row.usageDate)).toBe(false);
    c = await charts();
    expect(c.given).toEqual(c.summed);
    const o = await options();
    expect(o.given).toEqual(o.summed);
  });

  it("is emptied with its table", async () => {
    await gateway.store.db.execute(sql`truncate usage_records`);
    const { kept, summed } = await both();
    expect(summed).toEqual([]);
    expect(kept).toEqual([]);
    expect(resultRows<{ n: number }>(await gateway.store.db.execute(sql`select count(*)::int as n from usage_day_json`))[0]!.n).toBe(0);
  });
});
