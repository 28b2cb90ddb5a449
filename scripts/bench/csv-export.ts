/**
 * CSV export against PostgreSQL's own COPY: 1,000,000 generated usage rows of one
 * organization streamed through GET …/billing/export-productline, and the same
 * rows (same columns, order and filter) written by `COPY (…) TO STDOUT (FORMAT
 * csv)`, in the same run, on each engine the gateway runs on: PGlite (in a data
 * dir) and a PostgreSQL server the bench starts on loopback. The rows are
 * generated in this process; both are timed in a fresh one (csv-export-child.ts)
 * that opens the same store, as a restarted server would, so its memory shows the
 * export alone.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { BILLING_EXPORT_COLUMNS } from "@/lib/contract/billing";
import { csvHeader } from "@/lib/gateway/csv";
import { createLogger } from "@/lib/gateway/logger";
import { startGateway } from "@/lib/gateway/runtime";
import type { DemoCredentials } from "@/lib/gateway/seed";
import type { StoreOptions } from "@/lib/gateway/store/client";
import { firstMessage, spawnTs } from "./children";
import { generateUsage } from "./generate";
import { progressLine } from "./gateway-fixture";
import { startPostgres } from "./postgres";
import type { Row } from "./report";
import type { Scale } from "./scale";
import { formatInt } from "./stats";

export type Engine = "pglite" | "postgres";

export interface ExportMeasurement {
  rows: number;
  bytes: number;
  /** Best of the timed exports. */
  seconds: number;
  copyRows: number;
  copyBytes: number;
  /** Best of the timed COPYs. */
  copySeconds: number;
  /** What COPY wrote to: PGlite's /dev/blob read back, or psql's standard output. */
  copyHow: string;
  baselineRssMb: number;
  peakRssGrowthMb: number;
}

/** The export's rate as a share of COPY's, same rows, same run. */
const COPY_RATIO = 0.5;
const RSS_GROWTH_MB = 64;

export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

async function measureEngine(engine: Engine, scale: Scale): Promise<Row[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "stratus-bench-csv-"));
  const pg = engine === "postgres" ? await startPostgres() : null;
  try {
    const dataDir = path.join(dir, "data");
    // The fill's statements run as long as they take (the gateway's pool otherwise stops any at the request deadline).
    const store: StoreOptions = pg ? { kind: "postgres", url: pg.url, statementTimeoutMs: 0 } : { kind: "pglite", dataDir };
    const t0 = Date.now();
    const gateway = await startGateway({ dataDir, store, seed: true, logger: createLogger("silent") });
    const demo = JSON.parse(readFileSync(path.join(dataDir, "demo-credentials.json"), "utf8")) as DemoCredentials;
    // Only the generated rows: the demo's own usage would blur the row count.
    await gateway.store.db.execute("delete from usage_records" as never);
    await generateUsage(gateway.store.db, { organizationId: demo.organization_id, count: scale.billingRows, today: today() }, progressLine(`usage (${engine})`));
    // Vacuumed before the export is timed: the server's autovacuum on PostgreSQL, PGlite's own pass (lib/db/autovacuum.ts) otherwise.
    if (pg) await gateway.store.db.execute("vacuum analyze usage_records" as never);
    else await gateway.store.vacuumDue?.();
    await gateway.close();
    const generatedIn = (Date.now() - t0) / 1000;

    const args = pg ? [engine, dataDir, pg.url, pg.psql] : [engine, dataDir];
    const child = spawnTs("csv-export-child.ts", args, { stdio: ["ignore", "inherit", "inherit", "ipc"], nodeFlags: ["--expose-gc"] });
    const m = await firstMessage<ExportMeasurement | { error: string }>(child, 900_000);
    if ("error" in m) throw new Error(m.error);
    if (m.rows !== scale.billingRows) throw new Error(`the export held ${m.rows} rows, not ${scale.billingRows}`);
    if (m.copyRows !== m.rows) throw new Error(`COPY wrote ${m.copyRows} rows, the export ${m.rows}`);
    // The same work: COPY's bytes are the export's lines (no generated value needs quotes or a prefix) without its header.
    const header = Buffer.byteLength(csvHeader(BILLING_EXPORT_COLUMNS));
    if (m.copyBytes + header !== m.bytes) throw new Error(`COPY wrote ${m.copyBytes} bytes, the export ${m.bytes} (${header} of them its header): they do not write the same rows`);
    const rate = m.rows / m.seconds;
    const copyRate = m.copyRows / m.copySeconds;
    const ratio = rate / copyRate;
    const name = pg ? `PostgreSQL ${pg.version}` : "PGlite";
    const how =
      `${name}: ${scale.billingRows.toLocaleString("en-US")} generated usage rows (a year of daily rows, generated in ${generatedIn.toFixed(0)} s); ` +
      "GET …/billing/export-productline over the whole year, read to the end through the gateway's fetch handler in a fresh process on the same store, " +
      `against COPY (the same select) TO STDOUT (FORMAT csv) ${m.copyHow}; best of 2 each, alternating`;
    return [
      {
        what: `CSV export vs COPY (${name})`,
        how,
        measured:
          `${formatInt(rate)} rows/s (${(m.bytes / 1e6).toFixed(0)} MB in ${m.seconds.toFixed(1)} s) vs COPY ${formatInt(copyRate)} rows/s ` +
          `(${(m.copyBytes / 1e6).toFixed(0)} MB in ${m.copySeconds.toFixed(1)} s) = ${ratio.toFixed(2)}`,
        budget: `≥ ${COPY_RATIO} × COPY`,
        pass: ratio >= COPY_RATIO,
      },
      {
        what: `CSV export: memory (${name})`,
        how: "the first timed export, RSS of the gateway's process sampled every 5 ms against the level after a warm-up export",
        measured: `peak RSS growth ${m.peakRssGrowthMb.toFixed(1)} MB (from ${m.baselineRssMb.toFixed(0)} MB)`,
        budget: `≤ ${RSS_GROWTH_MB} MB`,
        pass: m.peakRssGrowthMb <= RSS_GROWTH_MB,
      },
    ];
  } finally {
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(scale: Scale): Promise<Row[]> {
  return [...(await measureEngine("pglite", scale)), ...(await measureEngine("postgres", scale))];
}
