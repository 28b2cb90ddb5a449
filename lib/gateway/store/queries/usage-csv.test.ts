import { stringify } from "csv-stringify/sync";
import { and, eq, sql } from "drizzle-orm";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BILLING_EXPORT_COLUMNS } from "@/lib/contract/billing";
import { USAGE_EXPORT_COLUMNS } from "@/lib/contract/usage";
import { createTestGateway, type TestGateway } from "../../testing";
import { projects, usageRecords } from "../schema";
import type { UsageFilter } from "./usage";
import { usageCsv, usageLines, type UsageLine } from "./usage-export";

let t: TestGateway;
let org: string;
let projectId: string;
beforeAll(async () => {
  t = await createTestGateway();
  org = t.demo.organization_id;
  const [project] = await t.gateway.store.db.select().from(projects).where(eq(projects.organizationId, org)).limit(1);
  projectId = project!.id;
  // Names an export must quote: commas, quotes, line breaks, and a deleted project's old name.
  const awkward = ['gpu, "big" one', "line\nbreak", "carriage\rreturn", "plain", "", "trailing ", "ünïcødé ☁"];
  await t.gateway.store.db.insert(usageRecords).values(
    awkward.flatMap((name, i) => [
      {
        organizationId: org,
        projectId: i % 2 ? projectId : "deleted-project",
        projectName: `old, "${name}"`,
        usageDate: "2001-02-03",
        region: "us-east1",
        resourceType: "h100-80gb-sxm-ib.8x",
        productLine: "h100",
        resourceId: `r-${i}`,
        resourceName: name,
        billableMetric: "gpu-hours",
        quantity: "1.5",
        unitPrice: "2.49",
      },
      {
        organizationId: org,
        projectId,
        usageDate: "2001-02-04",
        region: "eu-west2",
        resourceType: "persistent-ssd",
        productLine: "persistent-ssd",
        resourceId: `r-${i}-ssd`,
        resourceName: name,
        billableMetric: "gib-months",
        quantity: "0.000001",
        unitPrice: "0.07",
      },
    ]),
  );
});
afterAll(() => t.close());

const BILLING_ROW = (l: UsageLine) => [l.cost, l.billableMetric, l.productLine, l.projectId, l.projectName, l.quantity, l.region, l.resourceName, l.unitPrice, l.usageDate, l.resourceType];
const USAGE_ROW = (l: UsageLine) => [l.billableMetric, l.projectId, l.quantity, l.region, l.resourceId, l.resourceType, l.usageDate];

async function viaStringify(f: UsageFilter, toRow: (l: UsageLine) => string[]): Promise<string> {
  let text = "";
  for await (const batch of usageLines(t.gateway.store.db, org, f)) text += stringify(batch.map(toRow));
  return text;
}

async function viaDatabase(f: UsageFilter, columns: Parameters<typeof usageCsv>[3], options: Parameters<typeof usageCsv>[4] = {}): Promise<{ text: string; chunks: number }> {
  let text = "";
  let chunks = 0;
  const decoder = new TextDecoder();
  for await (const chunk of usageCsv(t.gateway.store.db, org, f, columns, options)) {
    text += decoder.decode(chunk, { stream: true });
    chunks++;
  }
  return { text: text + decoder.decode(), chunks };
}

describe("usageCsv", () => {
  it("writes exactly what csv-stringify writes of usageLines, awkward names included", async () => {
    const f = { startDate: "2001-01-01", endDate: "2001-12-31" };
    const billing = await viaStringify(f, BILLING_ROW);
    const records = Papa.parse<string[]>(billing.trimEnd()).data;
    expect(records).toHaveLength(14);
    expect(records.map((r) => r[7])).toContain("line\nbreak");
    expect(billing).toContain('"gpu, ""big"" one"');
    expect((await viaDatabase(f, BILLING_EXPORT_COLUMNS)).text).toBe(billing);
    expect((await viaDatabase(f, USAGE_EXPORT_COLUMNS)).text).toBe(await viaStringify(f, USAGE_ROW));
  });

  it("walks the whole period in keyset batches of the batch size, in (usage_date, seq) order", async () => {
    const f = { startDate: new Date(Date.now() - 15 * 86_400_000).toISOString().slice(0, 10) };
    const whole = await viaStringify(f, BILLING_ROW);
    const [stored] = await t.gateway.store.db
      .select({ n: sql<number>`count(*)::int` })
      .from(usageRecords)
      .where(and(eq(usageRecords.organizationId, org), sql`${usageRecords.usageDate} >= ${f.startDate}`));
    const n = Number(stored?.n);
    expect(n).toBeGreaterThan(1000);
    const batched = await viaDatabase(f, BILLING_EXPORT_COLUMNS, { batchSize: 333 });
    expect(batched.text).toBe(whole);
    expect(batched.chunks).toBe(Math.ceil(n / 333));
  });

  it("keeps to the filter and yields nothing when nothing matches", async () => {
    const f = { startDate: "2001-01-01", endDate: "2001-12-31", productLines: ["persistent-ssd"], projects: [projectId] };
    const { text } = await viaDatabase(f, BILLING_EXPORT_COLUMNS);
    expect(Papa.parse<string[]>(text.trimEnd()).data).toHaveLength(7);
    expect(text).toBe(await viaStringify(f, BILLING_ROW));
    expect(await viaDatabase({ startDate: "1990-01-01", endDate: "1990-01-02" }, BILLING_EXPORT_COLUMNS)).toEqual({ text: "", chunks: 0 });
  });

  // On PostgreSQL the routes' exports are one COPY (on PGlite these read in batches, as above).
  it("writes the same text as one COPY where the store is PostgreSQL", async () => {
    const copy = { copyStallMs: 10_000 };
    for (const f of [
      { startDate: "2001-01-01", endDate: "2001-12-31" },
      { startDate: "2001-01-01", endDate: "2001-12-31", productLines: ["persistent-ssd"], projects: [projectId] },
      { startDate: new Date(Date.now() - 15 * 86_400_000).toISOString().slice(0, 10) },
    ]) {
      expect((await viaDatabase(f, BILLING_EXPORT_COLUMNS, copy)).text).toBe(await viaStringify(f, BILLING_ROW));
      expect((await viaDatabase(f, USAGE_EXPORT_COLUMNS, copy)).text).toBe(await viaStringify(f, USAGE_ROW));
    }
    expect(await viaDatabase({ startDate: "1990-01-01", endDate: "1990-01-02" }, BILLING_EXPORT_COLUMNS, copy)).toEqual({ text: "", chunks: 0 });
  });
});
