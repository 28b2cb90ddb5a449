/**
 * CSV export: 1,000,000 generated usage rows of one organization streamed through
 * GET …/billing/export-productline. The rows are generated in one process; the
 * export is timed in a fresh one (csv-export-child.ts) that opens the same data
 * dir, as a restarted server would, so its memory shows the export alone.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLogger } from "@/lib/gateway/logger";
import { startGateway } from "@/lib/gateway/runtime";
import type { DemoCredentials } from "@/lib/gateway/seed";
import { firstMessage, spawnTs } from "./children";
import { generateUsage } from "./generate";
import { progressLine } from "./gateway-fixture";
import type { Row } from "./report";
import type { Scale } from "./scale";
import { formatInt } from "./stats";

export interface ExportMeasurement {
  rows: number;
  bytes: number;
  seconds: number;
  baselineRssMb: number;
  peakRssGrowthMb: number;
}

const ROWS_PER_SECOND = 100_000;
const RSS_GROWTH_MB = 64;

export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

export async function run(scale: Scale): Promise<Row[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "stratus-bench-csv-"));
  try {
    const dataDir = path.join(dir, "data");
    const t0 = Date.now();
    const gateway = await startGateway({ dataDir, store: { kind: "pglite", dataDir }, seed: true, logger: createLogger("silent") });
    const demo = JSON.parse(readFileSync(path.join(dataDir, "demo-credentials.json"), "utf8")) as DemoCredentials;
    // Only the generated rows: the demo's own usage would blur the row count.
    await gateway.store.db.execute("delete from usage_records" as never);
    await generateUsage(gateway.store.db, { organizationId: demo.organization_id, count: scale.billingRows, today: today() }, progressLine("usage"));
    await gateway.close();
    const generatedIn = (Date.now() - t0) / 1000;

    const child = spawnTs("csv-export-child.ts", [dataDir], { stdio: ["ignore", "inherit", "inherit", "ipc"], nodeFlags: ["--expose-gc"] });
    const m = await firstMessage<ExportMeasurement | { error: string }>(child, 600_000);
    if ("error" in m) throw new Error(m.error);
    if (m.rows !== scale.billingRows) throw new Error(`the export held ${m.rows} rows, not ${scale.billingRows}`);
    const rate = m.rows / m.seconds;
    const how = `${scale.billingRows.toLocaleString("en-US")} generated usage rows (a year of daily rows, generated in ${generatedIn.toFixed(0)} s); GET …/billing/export-productline over the whole year, read to the end through the gateway's fetch handler in a fresh process on the same data dir; RSS sampled every 5 ms against the level after a warm-up export`;
    return [
      {
        what: "CSV export: rate",
        how,
        measured: `${formatInt(rate)} rows/s (${formatInt(m.rows)} rows, ${(m.bytes / 1e6).toFixed(0)} MB in ${m.seconds.toFixed(1)} s)`,
        budget: `≥ ${formatInt(ROWS_PER_SECOND)} rows/s`,
        pass: rate >= ROWS_PER_SECOND,
      },
      {
        what: "CSV export: memory",
        how: "the same export",
        measured: `peak RSS growth ${m.peakRssGrowthMb.toFixed(1)} MB (from ${m.baselineRssMb.toFixed(0)} MB)`,
        budget: `≤ ${RSS_GROWTH_MB} MB`,
        pass: m.peakRssGrowthMb <= RSS_GROWTH_MB,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
