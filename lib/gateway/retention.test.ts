import { randomBytes, randomUUID } from "node:crypto";
import { and, eq, lt, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { env, resetEnvCache } from "@/lib/env";
import { createLogger } from "./logger";
import { purgeExpired } from "./retention";
import { startGateway, type Gateway } from "./runtime";
import { seedDemo } from "./seed";
import { resultRows } from "./store/client";
import { auditLog, auditLogTargets, organizations, usageDaily, usageRecords } from "./store/schema";
import { freshStoreOptions } from "./testing";

const DAY = 86_400_000;
const now = new Date("2026-06-15T12:00:00Z");
const daysAgo = (n: number) => new Date(now.getTime() - n * DAY);
const dateOf = (d: Date) => d.toISOString().slice(0, 10);

let gateway: Gateway;
let drop: () => Promise<void>;
let orgs: string[];

beforeAll(async () => {
  const fresh = await freshStoreOptions();
  drop = fresh.drop;
  const masterKey = randomBytes(32);
  gateway = await startGateway({ store: fresh.store, masterKey, seed: false, logger: createLogger("silent"), dataDir: "/nonexistent", retention: {} });
  await seedDemo(gateway.store.db, masterKey, { now });
  orgs = (await gateway.store.db.select({ id: organizations.id }).from(organizations).orderBy(organizations.id)).map((o) => o.id);
  expect(orgs.length).toBeGreaterThanOrEqual(2);
});

afterAll(async () => {
  await gateway?.close();
  await drop?.();
});

/** Audit entries and usage rows at these ages (days) in every organization, marked so a test finds its own. */
async function write(mark: string, ages: number[]) {
  const db = gateway.store.db;
  for (const organizationId of orgs) {
    await db.insert(auditLog).values(
      ages.map((age, i) => ({
        id: randomUUID(),
        organizationId,
        action: "Update",
        actorId: mark,
        actorEmail: `${mark}@retention.example`,
        actorType: "user",
        startTime: daysAgo(age),
        endTime: daysAgo(age),
        result: "OK",
        surface: "api",
        targetIds: [`${mark}-target-${age}-${i}`],
        targetNames: [`${mark}-name-${age}-${i}`],
      })),
    );
    await db.insert(usageRecords).values(
      ages.map((age, i) => ({
        organizationId,
        projectId: `${mark}-project`,
        usageDate: dateOf(daysAgo(age)),
        region: "us-east1",
        resourceType: "h100-80gb-sxm-ib.8x",
        productLine: "h100",
        resourceId: `${mark}-resource-${i}`,
        resourceName: `${mark}-resource-${i}`,
        billableMetric: "gpu-hours",
        quantity: "2.000000",
        unitPrice: "2.490000",
      })),
    );
  }
}

async function ages(mark: string) {
  const db = gateway.store.db;
  const entries = await db.select({ t: auditLog.startTime }).from(auditLog).where(eq(auditLog.actorId, mark));
  const targets = resultRows<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from ${auditLogTargets} where ${auditLogTargets.value} like ${`${mark}-%`}`),
  )[0]!.n;
  const usage = await db.select({ day: usageRecords.usageDate }).from(usageRecords).where(eq(usageRecords.projectId, `${mark}-project`));
  const sums = await db
    .select({ day: usageDaily.usageDate, records: usageDaily.records, quantity: usageDaily.quantity })
    .from(usageDaily)
    .where(eq(usageDaily.projectId, `${mark}-project`));
  const days = (list: Array<{ day: string }>) => list.map((r) => Math.round((now.getTime() - Date.parse(`${r.day}T12:00:00Z`)) / DAY)).sort((a, b) => a - b);
  return {
    audit: entries.map((e) => Math.round((now.getTime() - e.t.getTime()) / DAY)).sort((a, b) => a - b),
    targets,
    usage: days(usage),
    sums: days(sums),
    sumRecords: sums.reduce((n, s) => n + s.records, 0),
  };
}

describe("retention", () => {
  it("deletes in batches only the audit entries and usage days older than the policy's days, in every organization", async () => {
    // Four old rows per organization and a batch of 3: more than one batch each.
    await write("mixed", [400, 380, 366, 366, 364, 30, 0]);
    const deleted = await purgeExpired(gateway.store.db, { auditDays: 365, usageDays: 365 }, { now, batchSize: 3 });
    expect(deleted).toEqual({ audit: 4 * orgs.length, usage: 4 * orgs.length });
    const left = await ages("mixed");
    const kept = Array(orgs.length).fill([0, 30, 364]).flat().sort((a: number, b: number) => a - b);
    expect(left.audit).toEqual(kept);
    expect(left.usage).toEqual(kept);
    // The deleted entries' targets went with them; the daily sums hold the remaining rows only.
    expect(left.targets).toBe(kept.length * 2);
    expect(left.sumRecords).toBe(kept.length);
    expect(Math.max(...left.sums)).toBe(364);
  });

  it("keeps everything when no days are set, and each kind by its own setting", async () => {
    await write("forever", [3650, 800, 1]);
    expect(await purgeExpired(gateway.store.db, {}, { now })).toEqual({ audit: 0, usage: 0 });
    const all = Array(orgs.length).fill([1, 800, 3650]).flat().sort((a: number, b: number) => a - b);
    expect((await ages("forever")).audit).toEqual(all);
    expect((await ages("forever")).usage).toEqual(all);

    // Audit only: usage stays whatever its age.
    const auditOnly = await purgeExpired(gateway.store.db, { auditDays: 1000 }, { now });
    expect(auditOnly.usage).toBe(0);
    expect((await ages("forever")).audit).toEqual(all.filter((a) => a < 1000));
    expect((await ages("forever")).usage).toEqual(all);
    const usageOnly = await purgeExpired(gateway.store.db, { usageDays: 1000 }, { now });
    expect(usageOnly.audit).toBe(0);
    expect((await ages("forever")).usage).toEqual(all.filter((a) => a < 1000));
  });

  it("leaves the demo's own recent rows alone", async () => {
    const db = gateway.store.db;
    const recent = async () =>
      resultRows<{ n: number }>(await db.execute(sql`select count(*)::int as n from ${auditLog} where ${auditLog.startTime} >= ${daysAgo(30).toISOString()}::timestamptz`))[0]!.n;
    const before = await recent();
    expect(before).toBeGreaterThan(0);
    await purgeExpired(db, { auditDays: 30, usageDays: 30 }, { now });
    expect(await recent()).toBe(before);
    const [old] = await db.select({ n: sql<number>`count(*)::int` }).from(auditLog).where(and(lt(auditLog.startTime, daysAgo(30))));
    expect(old?.n).toBe(0);
  });
});

describe("retention settings", () => {
  const names = ["STRATUS_AUDIT_RETENTION_DAYS", "STRATUS_USAGE_RETENTION_DAYS"] as const;
  const saved = names.map((n) => process.env[n]);
  afterEach(() => {
    names.forEach((n, i) => (saved[i] === undefined ? delete process.env[n] : (process.env[n] = saved[i])));
    resetEnvCache();
  });

  it("are whole numbers of days; unset or empty keeps everything", () => {
    process.env.STRATUS_AUDIT_RETENTION_DAYS = "400";
    process.env.STRATUS_USAGE_RETENTION_DAYS = "";
    resetEnvCache();
    expect(env().STRATUS_AUDIT_RETENTION_DAYS).toBe(400);
    expect(env().STRATUS_USAGE_RETENTION_DAYS).toBeUndefined();
  });

  it.each(["0", "-5", "1.5", "a year", "36501"])("refuse %j at startup, naming the variable", async (value) => {
    for (const name of names) {
      names.forEach((n) => delete process.env[n]);
      process.env[name] = value;
      resetEnvCache();
      expect(() => env()).toThrow(new RegExp(`^Invalid environment: ${name}: must be a whole number of days`));
      await expect(startGateway({ store: { kind: "memory" }, masterKey: randomBytes(32), seed: false, logger: createLogger("silent"), dataDir: "/nonexistent" })).rejects.toThrow(name);
    }
  });
});
