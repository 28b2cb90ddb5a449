import { randomBytes } from "node:crypto";
import { eq, gt, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../logger";
import { startGateway, type Gateway } from "../runtime";
import { seedDemo } from "../seed";
import { freshStoreOptions } from "../testing";
import { resultRows } from "./client";
import { usageOptions } from "./queries/usage";
import { dailyCostsBody, keptUsageOptions, usageByPeriodBody, usageStamp, type BodyParts } from "./queries/usage-days";
import { usageRecords } from "./schema";

/** A body as the route answers it (text, or bytes in UTF-8 in parts) read as text. */
const utf8 = (body: string | BodyParts): string => (typeof body === "string" ? body : Buffer.concat(body.parts).toString("utf8"));

let gateway: Gateway;
let drop: () => Promise<void>;

beforeAll(async () => {
  const fresh = await freshStoreOptions();
  drop = fresh.drop;
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
 * Usage options as the billing and usage pages get them (merged from the days' rendered options),
 * and as the rows give them, for each organization: over all days and over a month, of all usage
 * and of usage on demand.
 */
async function options() {
  const db = gateway.store.db;
  const orgs = resultRows<{ id: string; first: string }>(
    await db.execute(sql`select organization_id as id, min(usage_date)::text as first from usage_records group by 1 order by 1`),
  );
  const given = [];
  const summed = [];
  for (const org of orgs) {
    const month = { startDate: org.first, endDate: new Date(Date.parse(org.first) + 30 * 86_400_000).toISOString().slice(0, 10) };
    for (const f of [{}, month, { withoutReservations: true }, { ...month, withoutReservations: true }]) {
      given.push(await keptUsageOptions(db, gateway.deps.reads, org.id, f));
      const { resources, ...fromRows } = await usageOptions(db, org.id, f, { withResources: true });
      expect(resources?.length).toBeGreaterThan(0);
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
    const copy = {
      organizationId: row.organizationId,
      projectId: row.projectId,
      projectName: row.projectName,
      usageDate: row.usageDate,
      region: row.region,
      resourceType: row.resourceType,
      productLine: row.productLine,
      resourceName: row.resourceName,
      billableMetric: row.billableMetric,
      unitPrice: row.unitPrice,
      reservationId: row.reservationId,
    };
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
    ]);
    expect((await both()).kept).toEqual((await both()).summed);
    expect((await charts()).given).toEqual((await charts()).summed);
    const after = await options();
    expect(after.given).toEqual(after.summed);
    expect(after.given.some((o) => o.product_lines.includes("another-line"))).toBe(true);
    expect(after.given.some((o) => o.project_names["deleted-project"] === "Deleted one, renamed")).toBe(true);

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
