/** The timed half of the CSV export benchmark (see csv-export.ts); reports over IPC. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { createLogger } from "@/lib/gateway/logger";
import { startGateway } from "@/lib/gateway/runtime";
import type { DemoCredentials } from "@/lib/gateway/seed";
import { signedHeaders } from "@/lib/signing";
import type { ExportMeasurement } from "./csv-export";

const MB = 1024 * 1024;

async function measure(dataDir: string): Promise<ExportMeasurement> {
  const gateway = await startGateway({ dataDir, store: { kind: "pglite", dataDir }, seed: false, logger: createLogger("silent") });
  try {
    const demo = JSON.parse(readFileSync(path.join(dataDir, "demo-credentials.json"), "utf8")) as DemoCredentials;
    const credentials = { accessKeyId: demo.owner.access_key_id, secretKey: demo.owner.secret_key };
    const exportRange = async (start: string, end: string) => {
      const url = new URL(`http://gateway.bench/v1/organizations/${demo.organization_id}/billing/export-productline?start_date=${start}&end_date=${end}`);
      const response = await gateway.app.fetch(new Request(url, { headers: signedHeaders(credentials, { method: "GET", url }) }));
      if (response.status !== 200 || !response.body) throw new Error(`export answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
      let newlines = 0;
      let bytes = 0;
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        for (let i = 0; i < value.length; i++) if (value[i] === 10) newlines++;
      }
      // Fields hold no newlines; the first line is the header.
      return { rows: newlines - 1, bytes };
    };
    const end = new Date();
    const start = new Date(end.getTime() - 364 * 86_400_000);
    const day = (d: Date) => d.toISOString().slice(0, 10);
    // A warm server has run an export before: the first one's code loading is not the export's memory.
    await exportRange(day(new Date(end.getTime() - 7 * 86_400_000)), day(end));
    global.gc?.();
    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    const maxRssBefore = process.resourceUsage().maxRSS * 1024;
    const t0 = performance.now();
    const { rows, bytes } = await exportRange(day(start), day(end));
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage.rss());
    // The high-water mark catches a peak between two samples, once it rises above the old one.
    const maxRssAfter = process.resourceUsage().maxRSS * 1024;
    if (maxRssAfter > maxRssBefore) peak = Math.max(peak, maxRssAfter);
    return { rows, bytes, seconds, baselineRssMb: baseline / MB, peakRssGrowthMb: (peak - baseline) / MB };
  } finally {
    await gateway.close();
  }
}

const dataDir = process.argv[2];
if (!dataDir) throw new Error("usage: csv-export-child.ts <data dir>");
try {
  process.send?.(await measure(dataDir));
} catch (error) {
  process.send?.({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
process.disconnect?.();
