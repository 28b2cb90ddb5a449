/** The timed half of the CSV export benchmark (see csv-export.ts); reports over IPC. */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { createLogger } from "@/lib/gateway/logger";
import { startGateway, type Gateway } from "@/lib/gateway/runtime";
import type { DemoCredentials } from "@/lib/gateway/seed";
import type { Engine, ExportMeasurement } from "./csv-export";
import { countNewlines, readBillingExport, type Read } from "./csv-read";

const MB = 1024 * 1024;

/**
 * The export's rows, as COPY writes them: the billing export's columns, filter and
 * order (lib/gateway/store/queries/usage-export.ts), no header.
 */
function copySelect(orgId: string, start: string, end: string): string {
  return `select u.cost, u.billable_metric, u.product_line, u.project_id, coalesce(p.name, u.project_name), u.quantity, u.region,
      u.resource_name, u.unit_price, to_char(u.usage_date, 'YYYY-MM-DD'), u.resource_type
    from usage_records u left join projects p on p.id = u.project_id and p.organization_id = '${orgId}'
    where u.organization_id = '${orgId}' and u.usage_date >= '${start}' and u.usage_date <= '${end}'
    order by u.usage_date, u.seq`;
}

/** COPY … TO STDOUT through psql, its output read by this process as it comes. */
function copyThroughPsql(psql: string, url: string, select: string): Promise<Read> {
  const t0 = performance.now();
  const child = spawn(psql, ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", `copy (${select}) to stdout (format csv)`], { stdio: ["ignore", "pipe", "inherit"] });
  let rows = 0;
  let bytes = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    bytes += chunk.byteLength;
    rows += countNewlines(chunk);
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve({ rows, bytes, seconds: (performance.now() - t0) / 1000 }) : reject(new Error(`psql exited ${code}`))));
  });
}

/** PGlite has no client connection to stream to: COPY writes to its /dev/blob device, read back here. */
async function copyThroughBlob(gateway: Gateway, select: string): Promise<Read> {
  const client = (gateway.store.db as unknown as { $client: PGlite }).$client;
  const t0 = performance.now();
  const result = await client.query(`copy (${select}) to '/dev/blob' (format csv)`);
  if (!result.blob) throw new Error("COPY to /dev/blob gave no blob");
  const bytes = new Uint8Array(await result.blob.arrayBuffer());
  const rows = countNewlines(bytes);
  return { rows, bytes: bytes.byteLength, seconds: (performance.now() - t0) / 1000 };
}

async function measure(engine: Engine, dataDir: string, url: string | undefined, psql: string | undefined): Promise<ExportMeasurement> {
  const store = engine === "postgres" ? { kind: "postgres" as const, url: url! } : { kind: "pglite" as const, dataDir };
  const gateway = await startGateway({ dataDir, store, seed: false, logger: createLogger("silent") });
  try {
    const demo = JSON.parse(readFileSync(path.join(dataDir, "demo-credentials.json"), "utf8")) as DemoCredentials;
    const credentials = { accessKeyId: demo.owner.access_key_id, secretKey: demo.owner.secret_key };
    const exportRange = (start: string, end: string): Promise<Read> => readBillingExport(gateway, credentials, demo.organization_id, start, end);
    const copyRange = (start: string, end: string): Promise<Read> => {
      const select = copySelect(demo.organization_id, start, end);
      return engine === "postgres" ? copyThroughPsql(psql!, url!, select) : copyThroughBlob(gateway, select);
    };
    const end = new Date();
    const start = new Date(end.getTime() - 364 * 86_400_000);
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const week = day(new Date(end.getTime() - 7 * 86_400_000));
    // A warm server has run an export before: the first one's code loading is not the export's memory.
    await exportRange(week, day(end));
    await copyRange(week, day(end));
    global.gc?.();
    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    const maxRssBefore = process.resourceUsage().maxRSS * 1024;
    const first = await exportRange(day(start), day(end));
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage.rss());
    // The high-water mark catches a peak between two samples, once it rises above the old one.
    const maxRssAfter = process.resourceUsage().maxRSS * 1024;
    if (maxRssAfter > maxRssBefore) peak = Math.max(peak, maxRssAfter);
    // Then COPY, the export again and COPY again: the best of two of each, taken in turns.
    const copies: Read[] = [await copyRange(day(start), day(end))];
    global.gc?.();
    const exports = [first, await exportRange(day(start), day(end))];
    global.gc?.();
    copies.push(await copyRange(day(start), day(end)));
    const best = (reads: Read[]) => reads.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    const e = best(exports);
    const c = best(copies);
    return {
      rows: e.rows,
      bytes: e.bytes,
      seconds: e.seconds,
      copyRows: c.rows,
      copyBytes: c.bytes,
      copySeconds: c.seconds,
      copyHow: engine === "postgres" ? "through psql, its output read by the same process" : "(PGlite: TO '/dev/blob', its device for COPY, read back into the same process)",
      baselineRssMb: baseline / MB,
      peakRssGrowthMb: (peak - baseline) / MB,
    };
  } finally {
    await gateway.close();
  }
}

const [engine, dataDir, url, psql] = process.argv.slice(2);
if ((engine !== "pglite" && engine !== "postgres") || !dataDir || (engine === "postgres" && (!url || !psql))) {
  throw new Error("usage: csv-export-child.ts pglite <data dir> | postgres <data dir> <url> <psql>");
}
try {
  process.send?.(await measure(engine, dataDir, url, psql));
} catch (error) {
  process.send?.({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
process.disconnect?.();
