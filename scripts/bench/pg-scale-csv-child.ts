/**
 * The CSV half of the scale section (pg-scale.ts), in a fresh process on the filled store:
 * the billing and the usage export of every row, each read to the end (the billing export
 * through the gateway app, the usage export's stream as its route writes it), its RSS sampled every 5 ms against the level after a warm-up export. Reports over IPC.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { USAGE_EXPORT_COLUMNS } from "@/lib/contract/usage";
import { createLogger } from "@/lib/gateway/logger";
import { startGateway } from "@/lib/gateway/runtime";
import type { DemoCredentials } from "@/lib/gateway/seed";
import { usageCsv } from "@/lib/gateway/store/queries/usage-export";
import { countNewlines, readBillingExport } from "./csv-read";
import type { CsvMeasurement } from "./pg-scale";

const MB = 1024 * 1024;

async function measure(url: string, dataDir: string, orgId: string, start: string, end: string): Promise<{ billing: CsvMeasurement; usage: CsvMeasurement }> {
  const gateway = await startGateway({ dataDir, store: { kind: "postgres", url }, seed: false, logger: createLogger("silent") });
  try {
    const demo = JSON.parse(readFileSync(path.join(dataDir, "demo-credentials.json"), "utf8")) as DemoCredentials;
    const credentials = { accessKeyId: demo.owner.access_key_id, secretKey: demo.owner.secret_key };
    /** The billing export through the gateway app, the whole response read. */
    const billing = (from: string, to: string) => readBillingExport(gateway, credentials, orgId, from, to);
    /**
     * The usage export's stream (usageCsv with its columns, as the route asks for it) without the route: the route takes
     * at most 100 resources, so no request asks for every row.
     */
    const usage = async (from: string, to: string) => {
      const t0 = performance.now();
      let newlines = 0;
      let bytes = 0;
      for await (const chunk of usageCsv(gateway.store.db, orgId, { startDate: from, endDate: to }, USAGE_EXPORT_COLUMNS, { copyStallMs: 30_000 })) {
        bytes += chunk.byteLength;
        newlines += countNewlines(chunk);
      }
      // The lines alone: the route writes the header.
      return { rows: newlines, bytes, seconds: (performance.now() - t0) / 1000 };
    };
    const exportAll = async (read: typeof billing): Promise<CsvMeasurement> => {
      // A warm server has run an export before: the first one's code loading is not the export's memory.
      await read(end, end);
      global.gc?.();
      const baseline = process.memoryUsage.rss();
      let peak = baseline;
      const timer = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, 5);
      let first: Awaited<ReturnType<typeof read>>;
      try {
        first = await read(start, end);
        peak = Math.max(peak, process.memoryUsage.rss());
      } finally {
        clearInterval(timer);
      }
      // The rate is the better of two runs (the memory is the first's).
      global.gc?.();
      const second = await read(start, end);
      const best = second.seconds < first.seconds ? second : first;
      return { ...best, baselineRssMb: baseline / MB, peakRssGrowthMb: (peak - baseline) / MB };
    };
    return { billing: await exportAll(billing), usage: await exportAll(usage) };
  } finally {
    await gateway.close();
  }
}

const [url, dataDir, orgId, start, end] = process.argv.slice(2);
if (!url || !dataDir || !orgId || !start || !end) throw new Error("usage: pg-scale-csv-child.ts <url> <data dir> <organization id> <start date> <end date>");
try {
  process.send?.(await measure(url, dataDir, orgId, start, end));
} catch (error) {
  process.send?.({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
process.disconnect?.();
