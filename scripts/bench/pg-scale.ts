/**
 * Scale on PostgreSQL (`npm run bench -- --only scale`): a PostgreSQL server started here on
 * loopback (postgres.ts), the gateway's store migrated into it, and filled inside the database
 * with generate_series (generate.ts): 10,000,000 audit-log entries over 2 years across 3
 * organizations and 20 projects, and 10,000,000 usage rows, 2 years of daily billing of the
 * largest organization. BENCH_SCALE_ROWS sets another count (development runs 1,000,000).
 *
 * Then, through the gateway's real code paths (signed requests to the Hono app, as the audit
 * section does): every audit-log filter and the common combinations, paging, searches that
 * match nothing, the billing and usage charts over 90 days, their filter options after a usage
 * write; both CSV exports of all rows in a
 * fresh process (pg-scale-csv-child.ts); last, retention switched on (the oldest month deleted
 * while the searches run). Each measured query is explained (EXPLAIN on the
 * same query functions with the same values) and every plan that is not an index scan is
 * written into the results with a line saying why.
 */
import { randomUUID } from "node:crypto";
import { SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { drizzle as drizzleNodePg } from "drizzle-orm/node-postgres";
import pg from "pg";
import { createOrganization } from "@/lib/gateway/admin";
import { PURGE_BATCH, purgeExpired } from "@/lib/gateway/retention";
import { decodePageToken } from "@/lib/gateway/routes/audit-logs/page-token";
import { pageQuery, type AuditFilter, type AuditPosition } from "@/lib/gateway/store/queries/audit-logs";
import { dayPointsQuery } from "@/lib/gateway/store/queries/usage-days";
import { usageBatchQuery } from "@/lib/gateway/store/queries/usage-export";
import { resultRows, type Database } from "@/lib/gateway/store/client";
import * as schema from "@/lib/gateway/store/schema";
import { organizations, projects, usageRecords } from "@/lib/gateway/store/schema";
import { AUDIT_DISKS, generateAuditLog, generateUsage } from "./generate";
import { benchGateway, progressLine } from "./gateway-fixture";
import { firstMessage, spawnTs } from "./children";
import { startPostgres } from "./postgres";
import type { Row, SectionOutput } from "./report";
import type { Scale } from "./scale";
import { formatInt, formatMs, median, nowMs, percentile } from "./stats";

const SEARCH_P95_MS = 25;
const PAGE_50_RATIO = 1.5;
const CHART_P95_MS = 50;
const CSV_ROWS_PER_S = 250_000;
const CSV_RSS_GROWTH_MB = 64;
const DAY = 86_400_000;
const PAGE = 20;
/** Days of audit history and of billing. */
const SPAN_DAYS = 730;
/** The fewest times of one search during the purge for its own p95 to be judged. */
const RETENTION_MIN_SAMPLES = 20;

/** Days of history the retention case deletes: the oldest month. */
const RETENTION_CUT_DAYS = 30;
/**
 * Server settings of a machine dedicated to the database, sized for this data set, on SSD
 * (random_page_cost 1.1, as usually tuned for SSDs: the default 4 prices a random read like a disk seek).
 */
const SERVER_SETTINGS = {
  shared_buffers: "2GB",
  effective_cache_size: "8GB",
  work_mem: "32MB",
  maintenance_work_mem: "1GB",
  max_wal_size: "16GB",
  random_page_cost: "1.1",
};

export interface CsvMeasurement {
  rows: number;
  bytes: number;
  seconds: number;
  baselineRssMb: number;
  peakRssGrowthMb: number;
}

type Group = "paging" | "single" | "combination" | "nothing";

interface AuditCase {
  name: string;
  group: Group;
  filter: AuditFilter;
  /** Page 50: the position its token names. */
  after?: AuditPosition;
  query?: string;
}

interface Plan {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Plan Rows": number;
  "Sort Key"?: string[];
  Plans?: Plan[];
}

interface Explained {
  name: string;
  /** Scan and sort nodes that are not an index scan; empty when the plan is index scans only. */
  notIndex: string[];
  text: string;
}

const PARAMS: Record<Exclude<keyof AuditFilter, "start" | "end">, string> = {
  projectIds: "project_ids",
  actions: "actions",
  actorIds: "actor_ids",
  actorEmails: "actor_emails",
  actorTypes: "actor_types",
  targetIds: "target_ids",
  targetTypes: "target_types",
  targetNames: "target_names",
  locations: "locations",
  results: "results",
  resultsNot: "results_not",
  surfaces: "surfaces",
};

/** The query string of a search, as a client writes it. */
function searchQuery(f: AuditFilter): string {
  const q = new URLSearchParams();
  for (const [key, name] of Object.entries(PARAMS) as Array<[keyof typeof PARAMS, string]>) for (const v of f[key] ?? []) q.append(name, v);
  if (f.start) q.set("start_time", f.start);
  if (f.end) q.set("end_time", f.end);
  return q.toString();
}

function planNodes(plan: Plan): Plan[] {
  return [plan, ...(plan.Plans ?? []).flatMap(planNodes)];
}

const NOT_RELATION_SCANS = new Set(["Function Scan", "Subquery Scan", "CTE Scan", "Values Scan", "WorkTable Scan", "Result"]);

/** The nodes that make a plan more than index range scans: other scans, and sorts. */
function notIndexNodes(plan: Plan): string[] {
  return planNodes(plan)
    .filter((n) => {
      const type = n["Node Type"];
      if (type === "Sort" || type === "Incremental Sort") return true;
      return type.endsWith("Scan") && !NOT_RELATION_SCANS.has(type) && type !== "Index Scan" && type !== "Index Only Scan";
    })
    .map((n) => {
      const on = n["Relation Name"] ? ` on ${n["Relation Name"]}` : n["Index Name"] ? ` of ${n["Index Name"]}` : "";
      const key = n["Sort Key"] ? ` by ${n["Sort Key"].join(", ")}` : "";
      return `${n["Node Type"]}${on}${key} (≈${formatInt(n["Plan Rows"])} rows)`;
    });
}

const dialect = new PgDialect();

async function explain(client: pg.Client, name: string, query: { toSQL(): { sql: string; params: unknown[] } } | SQL): Promise<Explained> {
  const { sql: text, params } = query instanceof SQL ? dialect.sqlToQuery(query) : query.toSQL();
  const json = await client.query<{ "QUERY PLAN": Array<{ Plan: Plan }> }>({ text: `explain (format json) ${text}`, values: params });
  const plan = json.rows[0]!["QUERY PLAN"][0]!.Plan;
  const lines = await client.query<{ "QUERY PLAN": string }>({ text: `explain ${text}`, values: params });
  return { name, notIndex: notIndexNodes(plan), text: lines.rows.map((r) => r["QUERY PLAN"]).join("\n") };
}

/** The indexes of one enumerated filter's values (organization, value): no time order (migrations/online/0017_audit_value_indexes.sql). */
const VALUE_INDEXES = ["audit_action_idx", "audit_actor_type_idx", "audit_target_type_idx", "audit_result_idx", "audit_surface_idx"];

/** Why a plan that is not index scans alone is what it should be; null when no known reason applies. */
function why(p: Explained): string | null {
  const sortsOnly = p.notIndex.every((n) => n.startsWith("Sort "));
  if (sortsOnly && p.text.includes("audit_targets_search_idx")) {
    return (
      "a search by target (or location) reads, for each wanted value, its first page + 1 entries in time order from audit_targets_search_idx (index only) and " +
      "joins them to audit_log by seq; the Sort only orders that union (at most page + 1 rows per value), never the target's other entries"
    );
  }
  const byValue = VALUE_INDEXES.find((name) => p.text.includes(name));
  if (byValue && p.notIndex.every((n) => n.startsWith("Sort ") || n.startsWith("Bitmap Heap Scan"))) {
    return (
      `the planner expects the value to be rare (from its statistics) and reads its entries from ${byValue} (organization, value), ` +
      "then sorts those few by time; a common value's page comes from the time index instead"
    );
  }
  return null;
}

function rowsOption(scale: Scale): number {
  const raw = process.env.BENCH_SCALE_ROWS;
  if (raw === undefined || raw === "") return scale.scaleRows;
  const value = Number(raw.replace(/_/g, ""));
  if (!Number.isInteger(value) || value < 10_000) throw new Error(`BENCH_SCALE_ROWS must be a whole number of at least 10000, not ${raw}`);
  return value;
}

export async function run(scale: Scale): Promise<SectionOutput> {
  const total = rowsOption(scale);
  const pgServer = await startPostgres(SERVER_SETTINGS);
  try {
    const bench = await benchGateway("scale", pgServer.url);
    try {
      return await measure(scale, total, pgServer, bench);
    } finally {
      await bench.close();
    }
  } finally {
    await pgServer.stop();
  }
}

async function measure(scale: Scale, total: number, pgServer: Awaited<ReturnType<typeof startPostgres>>, bench: Awaited<ReturnType<typeof benchGateway>>): Promise<SectionOutput> {
  const { demo, gateway } = bench;
  const db = gateway.store.db;
  const orgId = demo.organization_id;
  const now = new Date();
  const today = now.toISOString().slice(0, 10);
  const size = total.toLocaleString("en-US");

  // Three organizations, twenty projects: the demo's two organizations and a third; one of
  // the largest organization's projects is created after the fill and has no entries.
  const [globex] = await db.select({ id: organizations.id }).from(organizations).where(sql`${organizations.name} = 'Globex Research'`);
  if (!globex) throw new Error("the demo's second organization is missing");
  const initech = await createOrganization(db, { name: "Initech Robotics", ownerId: demo.outsider.user_id });
  const addProjects = (organizationId: string, names: string[]) =>
    names.length ? db.insert(projects).values(names.map((name) => ({ id: randomUUID(), organizationId, name }))) : Promise.resolve();
  await addProjects(orgId, ["vision", "speech", "robotics-sim", "batch-scoring", "customer-a"]);
  await addProjects(globex.id, ["genomics", "climate", "protein-fold", "shared"]);
  await addProjects(initech.id, ["firmware", "fleet", "sim"]);

  // The fill writes the rows first and builds the secondary indexes afterwards (as a restore
  // does): the same indexes as migrated, in a fraction of the time. It runs on a pool of its own:
  // the gateway's stops any statement at the request deadline, and an index build takes minutes.
  const fillPool = new pg.Pool({ connectionString: pgServer.url, max: 1 });
  const fillDb = drizzleNodePg({ client: fillPool, schema }) as unknown as Database;
  const indexes = resultRows<{ indexname: string; indexdef: string }>(
    await fillDb.execute(sql`select i.indexname, i.indexdef from pg_indexes i
      where i.schemaname = 'public' and i.tablename in ('audit_log', 'audit_log_targets', 'usage_records')
        and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`),
  );
  for (const index of indexes) await fillDb.execute(sql.raw(`drop index "${index.indexname}"`));
  const t0 = Date.now();
  const shares: Array<[string, number, { id: string; email: string }, { id: string; email: string }]> = [
    [orgId, Math.round(total * 0.6), { id: demo.owner.user_id, email: demo.owner.email }, { id: demo.member.user_id, email: demo.member.email }],
    [globex.id, Math.round(total * 0.3), { id: demo.outsider.user_id, email: demo.outsider.email }, { id: "globex-admin", email: "admin@globex.example" }],
    [initech.id, total - Math.round(total * 0.6) - Math.round(total * 0.3), { id: "initech-owner", email: "owner@initech.example" }, { id: "initech-ops", email: "ops@initech.example" }],
  ];
  for (const [organizationId, count, owner, member] of shares) {
    await generateAuditLog(fillDb, { organizationId, people: { owner, member }, count, now, spanDays: SPAN_DAYS }, progressLine(`audit log ${organizationId.slice(0, 8)}`));
  }
  const auditSeconds = (Date.now() - t0) / 1000;
  const t1 = Date.now();
  // Only the generated rows: the demo's own usage would blur the row count.
  await fillDb.delete(usageRecords);
  await generateUsage(fillDb, { organizationId: orgId, count: total, today, days: SPAN_DAYS }, progressLine("usage"));
  const usageSeconds = (Date.now() - t1) / 1000;
  const t2 = Date.now();
  for (const index of indexes) await fillDb.execute(sql.raw(index.indexdef));
  await fillDb.execute(sql`vacuum analyze`);
  const indexSeconds = (Date.now() - t2) / 1000;
  const [sizes] = resultRows<{ audit: string; targets: string; usage: string }>(
    await fillDb.execute(sql`select pg_size_pretty(pg_total_relation_size('audit_log')) as audit, pg_size_pretty(pg_total_relation_size('audit_log_targets')) as targets,
      pg_size_pretty(pg_total_relation_size('usage_records')) as usage`),
  );
  const fill = `filled in ${auditSeconds.toFixed(0)} s (audit) + ${usageSeconds.toFixed(0)} s (usage) + ${indexSeconds.toFixed(0)} s (indexes, vacuum analyze); audit_log ${sizes?.audit}, audit_log_targets ${sizes?.targets}, usage_records ${sizes?.usage}`;
  await fillPool.end();
  process.stderr.write(`  ${fill}\n`);

  const orgProjects = await db.select({ id: projects.id, name: projects.name }).from(projects).where(sql`${projects.organizationId} = ${orgId}`).orderBy(projects.name);
  const project = orgProjects[0]!.id;
  const emptyProject = randomUUID();
  await db.insert(projects).values({ id: emptyProject, organizationId: orgId, name: "new-project" });
  const [vm] = resultRows<{ id: string; name: string }>(await db.execute(sql`select id, name from vms where organization_id = ${orgId} order by name limit 1`));
  const [snapshot] = resultRows<{ id: string }>(
    await db.execute(sql`select target_ids[1] as id from audit_log where organization_id = ${orgId} and target_type = 'Snapshot' order by start_time desc, seq desc limit 1`),
  );
  if (!vm || !snapshot) throw new Error("the generated log holds no VM or snapshot entries");
  const disk = resultRows<{ id: string }>(await db.execute(sql`select md5('bench-disk-' || ${17 % AUDIT_DISKS})::uuid::text as id`))[0]!.id;
  const dayBefore = (days: number) => new Date(now.getTime() - days * DAY).toISOString();
  const untilNow = now.toISOString();

  const cases: AuditCase[] = [
    { name: "page 1", group: "paging", filter: {} },
    { name: "project_ids", group: "single", filter: { projectIds: [project] } },
    { name: "start_time+end_time (1 day)", group: "single", filter: { start: dayBefore(31), end: dayBefore(30) } },
    { name: "actions", group: "single", filter: { actions: ["Delete"] } },
    { name: "actor_ids", group: "single", filter: { actorIds: ["bench-actor-7"] } },
    { name: "actor_emails", group: "single", filter: { actorEmails: ["actor-7@bench.example"] } },
    { name: "actor_types", group: "single", filter: { actorTypes: ["system"] } },
    { name: "target_ids (a disk)", group: "single", filter: { targetIds: [disk] } },
    { name: "target_ids (a snapshot, rare)", group: "single", filter: { targetIds: [snapshot.id] } },
    { name: "target_ids (a VM, busy)", group: "single", filter: { targetIds: [vm.id] } },
    { name: "target_types", group: "single", filter: { targetTypes: ["S3Key"] } },
    { name: "target_names", group: "single", filter: { targetNames: [vm.name] } },
    { name: "locations", group: "single", filter: { locations: ["eu-north1-a"] } },
    { name: "results", group: "single", filter: { results: ["PERMISSION_DENIED"] } },
    { name: "results_not", group: "single", filter: { resultsNot: ["OK"] } },
    { name: "surfaces", group: "single", filter: { surfaces: ["terraform"] } },
    { name: "project + action", group: "combination", filter: { projectIds: [project], actions: ["Delete"] } },
    { name: "actor + time window (7 days)", group: "combination", filter: { actorIds: ["bench-actor-7"], start: dayBefore(7), end: untilNow } },
    { name: "target + result", group: "combination", filter: { targetIds: [vm.id], results: ["PERMISSION_DENIED"] } },
    { name: "project + time window (1 day)", group: "combination", filter: { projectIds: [project], start: dayBefore(31), end: dayBefore(30) } },
    { name: "result + time window (7 days)", group: "combination", filter: { results: ["PERMISSION_DENIED"], start: dayBefore(7), end: untilNow } },
    // A location holds a sixth of the organization: the window must bound the walk of its index.
    { name: "location + time window (a day a year ago)", group: "combination", filter: { locations: ["eu-north1-a"], start: dayBefore(366), end: dayBefore(365) } },
    { name: "actor_ids (never acted)", group: "nothing", filter: { actorIds: ["former-employee"] } },
    { name: "actor_emails (never acted)", group: "nothing", filter: { actorEmails: ["nobody@bench.example"] } },
    { name: "project_ids (a new project)", group: "nothing", filter: { projectIds: [emptyProject] } },
    { name: "target_ids (unknown)", group: "nothing", filter: { targetIds: [randomUUID()] } },
    { name: "time window before the first entry", group: "nothing", filter: { start: dayBefore(SPAN_DAYS + 60), end: dayBefore(SPAN_DAYS + 30) } },
    // Values of the enumerated filters that no entry holds (a typo, or a value of another platform):
    // without an index of their own, each read every entry of the organization to fill no page.
    { name: "actions (unknown)", group: "nothing", filter: { actions: ["Restore"] } },
    { name: "actor_types (unknown)", group: "nothing", filter: { actorTypes: ["robot"] } },
    { name: "target_types (unknown)", group: "nothing", filter: { targetTypes: ["Firewall"] } },
    { name: "locations (unknown)", group: "nothing", filter: { locations: ["ap-south1-a"] } },
    { name: "results (never happened)", group: "nothing", filter: { results: ["UNAVAILABLE"] } },
    { name: "surfaces (unknown)", group: "nothing", filter: { surfaces: ["mobile"] } },
  ];
  const base = `/v1/organizations/${orgId}/audit-logs`;
  const get = async (query: string): Promise<{ items: unknown[]; next_page_token: string }> => {
    const response = await bench.get(`${base}${query ? `?${query}` : ""}`);
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${query}: ${response.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as { items: unknown[]; next_page_token: string };
  };
  // Page 50: walk 49 next tokens from the first page.
  let token = (await get("")).next_page_token;
  for (let i = 2; i < 50; i++) token = (await get(`next_token=${encodeURIComponent(token)}`)).next_page_token;
  cases.splice(1, 0, { name: "page 50", group: "paging", filter: {}, after: decodePageToken(gateway.deps.masterKey, orgId, "next", token), query: `next_token=${encodeURIComponent(token)}` });
  for (const c of cases) c.query ??= searchQuery(c.filter);

  const start90 = dayBefore(89).slice(0, 10);
  const charts = [
    { name: "billing chart (90 days)", path: `/v1/organizations/${orgId}/billing/costs?start_date=${start90}&end_date=${today}`, list: "data" },
    { name: "usage chart (90 days, daily)", path: `/v1/organizations/${orgId}/usage?start_date=${start90}&end_date=${today}&interval=daily`, list: "items" },
  ];
  const points = new Map<string, number>();

  // Each request once per round, round after round: a burst of other load falls on all alike.
  const requests = [
    ...cases.map((c) => ({ name: c.name, run: async () => (await get(c.query!)).items.length })),
    ...charts.map((c) => ({
      name: c.name,
      // Timed to the last byte of the answer, read as it comes; its bytes are joined, decoded and the
      // points counted once, outside the timing (joining, decoding and parsing are the client's work).
      run: async () => {
        const response = await bench.get(c.path);
        const keep = response.status !== 200 || !points.has(c.name);
        const chunks: Uint8Array[] = [];
        const reader = response.body!.getReader();
        for (let read = await reader.read(); !read.done; read = await reader.read()) if (keep) chunks.push(read.value);
        if (keep) {
          const text = Buffer.concat(chunks).toString("utf8");
          if (response.status !== 200) throw new Error(`${c.name}: ${response.status} ${text.slice(0, 300)}`);
          points.set(c.name, (JSON.parse(text) as Record<string, unknown[]>)[c.list]!.length);
        }
        return points.get(c.name)!;
      },
    })),
  ];
  const times = requests.map(() => [] as number[]);
  const found = requests.map(() => 0);
  // The first ask of each, untimed by the rounds; a chart's first ask reads every day's points from the store.
  const firstAsk = new Map<string, number>();
  for (const r of requests) {
    const t = nowMs();
    await r.run();
    firstAsk.set(r.name, nowMs() - t);
  }
  const rounds = scale.queryRepeats;
  for (let round = 0; round < rounds; round++) {
    for (const [i, r] of requests.entries()) {
      const t = nowMs();
      found[i] = await r.run();
      times[i]!.push(nowMs() - t);
    }
  }
  /** The case of the highest p95. */
  const worst = <T extends { p95: number }>(list: T[]) => list.reduce((a, b) => (b.p95 > a.p95 ? b : a));
  const stat = (name: string) => {
    const i = requests.findIndex((r) => r.name === name);
    return { name, median: median(times[i]!), p95: percentile(times[i]!, 95), found: found[i]! };
  };
  for (const c of cases) {
    const s = stat(c.name);
    if (c.group === "nothing" ? s.found !== 0 : s.found === 0) throw new Error(`${c.name} found ${s.found} entries: the case is not what it says`);
  }
  for (const c of charts) if (stat(c.name).found === 0) throw new Error(`${c.name} is empty`);

  // The pages' filter options, each asked right after a usage write (untimed): usage comes in all
  // day, and each write to a day moves what the options of a range holding it are.
  const optionAsks = [
    { name: "usage options (every day)", path: `/v1/organizations/${orgId}/usage/options` },
    { name: "billing options (90 days)", path: `/v1/organizations/${orgId}/billing/options?start_date=${start90}&end_date=${today}` },
  ];
  const usageWrite = sql`update ${usageRecords} set quantity = quantity where seq = (select max(seq) from ${usageRecords})`;
  const askOptions = async (path: string): Promise<number> => {
    const response = await bench.get(path);
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text.slice(0, 300)}`);
    return (JSON.parse(text) as { projects: string[] }).projects.length;
  };
  const optionTimes = optionAsks.map(() => [] as number[]);
  for (const o of optionAsks) {
    const t = nowMs();
    if ((await askOptions(o.path)) === 0) throw new Error(`${o.name}: no projects`);
    firstAsk.set(o.name, nowMs() - t);
  }
  for (let round = 0; round < rounds; round++) {
    for (const [i, o] of optionAsks.entries()) {
      await db.execute(usageWrite);
      const t = nowMs();
      await askOptions(o.path);
      optionTimes[i]!.push(nowMs() - t);
    }
  }
  const optionStats = optionAsks.map((o, i) => ({ name: o.name, median: median(optionTimes[i]!), p95: percentile(optionTimes[i]!, 95) }));

  // EXPLAIN of the same query functions with the same values, on a connection of its own.
  const client = new pg.Client({ connectionString: pgServer.url });
  await client.connect();
  const plans: Explained[] = [];
  try {
    for (const c of cases) {
      plans.push(await explain(client, c.name, pageQuery(db, orgId, c.filter, PAGE + 1, "older", c.after, c.after)));
    }
    const range = { startDate: start90, endDate: today };
    plans.push(await explain(client, "billing chart (90 days)", dayPointsQuery(orgId, range, "billing")));
    plans.push(await explain(client, "usage chart (90 days, daily)", dayPointsQuery(orgId, range, "usage")));
    const all = { startDate: dayBefore(SPAN_DAYS).slice(0, 10), endDate: today };
    const line = sql`${usageRecords.resourceName}`;
    plans.push(await explain(client, "CSV export: first batch", usageBatchQuery(db, orgId, all, line, null, 5000)));
    plans.push(await explain(client, "CSV export: a batch a year in", usageBatchQuery(db, orgId, all, line, { date: dayBefore(365).slice(0, 10), seq: "0" }, 5000)));
  } finally {
    await client.end();
  }

  // Both exports of every row, in a fresh process on the same store (its memory is the export's).
  const child = spawnTs("pg-scale-csv-child.ts", [pgServer.url, bench.dataDir, orgId, dayBefore(SPAN_DAYS).slice(0, 10), today], { nodeFlags: ["--expose-gc"] });
  const csv = await firstMessage<{ billing: CsvMeasurement; usage: CsvMeasurement } | { error: string }>(child, 3_600_000);
  if ("error" in csv) throw new Error(csv.error);
  for (const m of [csv.billing, csv.usage]) if (m.rows !== total) throw new Error(`an export held ${m.rows} rows, not ${total}`);

  // Retention switched on at this size, last (it deletes rows): the oldest month of every
  // organization goes in the gateway's own batches (retention.ts), in this process as in a
  // gateway, while the searches above run again one after another. This is what deleting by the
  // (organization, time) indexes, not dropping time partitions, costs the searches meanwhile.
  const keepDays = SPAN_DAYS - RETENTION_CUT_DAYS;
  const cutoff = new Date(now.getTime() - keepDays * DAY);
  const searches = requests.filter((r) => cases.some((c) => c.name === r.name && c.group !== "nothing"));
  const during = searches.map(() => [] as number[]);
  let purging = true;
  const purgeStarted = nowMs();
  let purgeEnded = purgeStarted;
  const purge = purgeExpired(db, { auditDays: keepDays, usageDays: keepDays }, { now }).finally(() => {
    purging = false;
    purgeEnded = nowMs();
  });
  try {
    while (purging) {
      for (const [i, r] of searches.entries()) {
        if (!purging) break;
        const t = nowMs();
        await r.run();
        during[i]!.push(nowMs() - t);
      }
    }
  } finally {
    // A search that failed ends the section; the purge is waited for, its own failure not lost as unhandled.
    await purge.catch(() => undefined);
  }
  const purged = await purge;
  const purgeSeconds = (purgeEnded - purgeStarted) / 1000;
  // Nothing older than the cutoff is left, asked per organization on its (organization, time) index.
  for (const organizationId of [orgId, globex.id, initech.id]) {
    const [left] = resultRows<{ audit: boolean; usage: boolean }>(
      await db.execute(sql`select exists (select 1 from audit_log where organization_id = ${organizationId} and start_time < ${cutoff.toISOString()}::timestamptz) as audit,
        exists (select 1 from usage_records where organization_id = ${organizationId} and usage_date < ${cutoff.toISOString().slice(0, 10)}::date) as usage`),
    );
    if (left?.audit || left?.usage) throw new Error(`retention left rows older than ${keepDays} days in organization ${organizationId}`);
  }
  if (purged.audit === 0 || purged.usage === 0) throw new Error("retention deleted nothing: the case is not what it says");
  // A p95 of fewer than RETENTION_MIN_SAMPLES times is their slowest one (a purge of a smaller fill lasts a
  // second or two): those searches are judged together, by the p95 of all their times.
  const duringStats = searches.map((r, i) => ({ name: r.name, p95: percentile(during[i]!, 95), n: during[i]!.length })).filter((s) => s.n >= RETENTION_MIN_SAMPLES);
  const sparse = searches.flatMap((_, i) => (during[i]!.length < RETENTION_MIN_SAMPLES ? during[i]! : []));
  if (sparse.length > 0) duringStats.push({ name: `the searches with fewer than ${RETENTION_MIN_SAMPLES} times each, together`, p95: percentile(sparse, 95), n: sparse.length });
  if (during.flat().length < RETENTION_MIN_SAMPLES) throw new Error("the purge ended before enough searches: too few rows to measure retention (BENCH_SCALE_ROWS)");
  const duringWorst = worst(duringStats);
  const duringAll = percentile(during.flat(), 95);

  const group = (g: Group) => cases.filter((c) => c.group === g).map((c) => stat(c.name));
  const list = (l: ReturnType<typeof stat>[]) => l.map((s) => `${s.name} ${formatMs(s.p95)}`).join(", ");
  const first = stat("page 1");
  const fiftieth = stat("page 50");
  const ratio = fiftieth.median / first.median;
  const singles = group("single");
  const combos = group("combination");
  const nothing = group("nothing");
  const chartStats = charts.map((c) => stat(c.name));
  const on = `PostgreSQL ${pgServer.version}`;
  const searchHow = `${on}, ${size} audit entries over ${SPAN_DAYS} days in 3 organizations (60/30/10 %), 20 projects; the largest organization searched; signed GET …/audit-logs through the gateway app, page size ${PAGE}; ${rounds} rounds over every query`;
  const rate = (m: CsvMeasurement) => m.rows / m.seconds;
  const rows: Row[] = [
    {
      what: "scale: audit-log search, paging",
      how: `${searchHow}; page 50 reached by walking next tokens; medians; ${fill}`,
      measured: `page 50 ${formatMs(fiftieth.median)} vs page 1 ${formatMs(first.median)} = ${ratio.toFixed(2)} ×`,
      budget: `page 50 ≤ ${PAGE_50_RATIO} × page 1`,
      pass: ratio <= PAGE_50_RATIO,
    },
    {
      what: "scale: audit-log search, every single filter",
      how: `${searchHow}; the first page of each filter of the spec, one value each`,
      measured: `worst p95 ${formatMs(worst(singles).p95)} (${worst(singles).name}); ${list(singles)}`,
      budget: `every p95 ≤ ${SEARCH_P95_MS} ms`,
      pass: worst(singles).p95 <= SEARCH_P95_MS,
    },
    {
      what: "scale: audit-log search, common combinations",
      how: `${searchHow}; the first page of the five most common combinations, and a location in a time window`,
      measured: `worst p95 ${formatMs(worst(combos).p95)} (${worst(combos).name}); ${list(combos)}`,
      budget: `every p95 ≤ ${SEARCH_P95_MS} ms`,
      pass: worst(combos).p95 <= SEARCH_P95_MS,
    },
    {
      what: "scale: audit-log search matching nothing",
      how: `${searchHow}; filters whose value no entry holds`,
      measured: `worst p95 ${formatMs(worst(nothing).p95)} (${worst(nothing).name}); ${list(nothing)}`,
      budget: `every p95 ≤ ${SEARCH_P95_MS} ms`,
      pass: worst(nothing).p95 <= SEARCH_P95_MS,
    },
    {
      what: "scale: billing and usage charts, 90 days",
      how:
        `${on}, ${size} usage rows of one organization over ${SPAN_DAYS} days; GET …/billing/costs and …/usage (daily) for the last 90 days through the gateway app, timed to the answer's last byte; ` +
        `${rounds} rounds after a first ask of each (the gateway then holds the days' rendered points in memory, and each ask reads the days' row versions and the points of any day rendered since)`,
      measured:
        `worst p95 ${formatMs(worst(chartStats).p95)}; ${chartStats.map((s) => `${s.name} ${formatMs(s.p95)} (${formatInt(s.found)} points)`).join(", ")}; ` +
        `first ask ${chartStats.map((s) => `${s.name.split(" ")[0]} ${formatMs(firstAsk.get(s.name) ?? Number.NaN)}`).join(", ")}`,
      budget: `p95 ≤ ${CHART_P95_MS} ms`,
      pass: worst(chartStats).p95 <= CHART_P95_MS,
    },
    {
      what: "scale: billing and usage filter options",
      how:
        `${on}, ${size} usage rows of one organization over ${SPAN_DAYS} days; GET …/usage/options (every day, as the usage page asks) and …/billing/options (the last 90 days) through the gateway app, ` +
        `each right after a usage write (untimed) to the last day, ${rounds} rounds after a first ask of each (each ask then reads the days' row versions and the options of the day written since)`,
      measured:
        `worst p95 ${formatMs(worst(optionStats).p95)}; ${optionStats.map((s) => `${s.name} ${formatMs(s.p95)} (median ${formatMs(s.median)})`).join(", ")}; ` +
        `first ask ${optionStats.map((s) => `${s.name.split(" ")[0]} ${formatMs(firstAsk.get(s.name) ?? Number.NaN)}`).join(", ")}`,
      budget: `p95 ≤ ${CHART_P95_MS} ms`,
      pass: worst(optionStats).p95 <= CHART_P95_MS,
    },
    ...(
      [
        ["billing", "GET …/billing/export-productline over all days, read to the end through the gateway app", csv.billing],
        ["usage", "the usage export's stream (usageCsv with its columns) over all days and resources (its route takes at most 100 resources, so no request can ask for every row)", csv.usage],
      ] as const
    ).map(([kind, how, m]) => ({
      what: `scale: ${kind} CSV export, ${size} rows`,
      how: `${on}; ${how}, in a fresh process on the filled store, best of 2; RSS of the first sampled every 5 ms against the level after a warm-up export`,
      measured: `${formatInt(rate(m))} rows/s (${(m.bytes / 1e6).toFixed(0)} MB in ${m.seconds.toFixed(1)} s); peak RSS growth ${m.peakRssGrowthMb.toFixed(1)} MB (from ${m.baselineRssMb.toFixed(0)} MB)`,
      budget: `≥ ${formatInt(CSV_ROWS_PER_S)} rows/s, ≤ ${CSV_RSS_GROWTH_MB} MB`,
      pass: rate(m) >= CSV_ROWS_PER_S && m.peakRssGrowthMb <= CSV_RSS_GROWTH_MB,
    })),
    {
      what: "scale: retention switched on",
      how:
        `${on}, the filled store; audit and usage retention of ${keepDays} days (STRATUS_AUDIT_RETENTION_DAYS, STRATUS_USAGE_RETENTION_DAYS) over ${SPAN_DAYS} days of rows: the gateway's purge (lib/gateway/retention.ts: ` +
        `per organization, statements of ${formatInt(PURGE_BATCH)} rows on the (organization, time) indexes, an entry's targets going with it) deletes the oldest ${RETENTION_CUT_DAYS} days of every organization, ` +
        `in the same process as the gateway app, while the searches of the rows above (all but those matching nothing) run one after another through it; p95 of each over the purge's length (of those timed fewer than ${RETENTION_MIN_SAMPLES} times, of their times together); afterwards no row older than the cutoff is left`,
      measured:
        `${formatInt(purged.audit)} audit entries and ${formatInt(purged.usage)} usage rows deleted in ${purgeSeconds.toFixed(1)} s (${formatInt((purged.audit + purged.usage) / purgeSeconds)} rows/s); ` +
        `${formatInt(during.flat().length)} searches meanwhile: p95 ${formatMs(duringAll)}, worst ${formatMs(duringWorst.p95)} (${duringWorst.name})`,
      budget: `every search p95 ≤ ${SEARCH_P95_MS} ms while it runs`,
      pass: duringWorst.p95 <= SEARCH_P95_MS,
    },
  ];
  return { rows, appendix: appendix(size, on, cases, requests.map((r) => stat(r.name)), plans) };
}

function appendix(size: string, on: string, cases: AuditCase[], stats: Array<{ name: string; median: number; p95: number; found: number }>, plans: Explained[]): string {
  const cell = (text: string) => text.replace(/\|/g, "\\|");
  const planOf = (name: string) => plans.find((p) => p.name === name);
  const lines = [
    `## Scale on PostgreSQL: each query at ${size} rows`,
    "",
    `${on} on loopback, started and filled by the section (\`npm run bench -- --only scale\`, scripts/bench/pg-scale.ts). A plan is an index plan when every table it reads is read by an index (range or index-only) scan and nothing is sorted.`,
    "",
    "| query | kind | items | median | p95 | plan |",
    "|---|---|---|---|---|---|",
    ...stats.map((s) => {
      const kind = cases.find((c) => c.name === s.name)?.group ?? "chart";
      const plan = planOf(s.name);
      return `| ${cell(s.name)} | ${kind} | ${formatInt(s.found)} | ${formatMs(s.median)} | ${formatMs(s.p95)} | ${plan ? (plan.notIndex.length ? "not index only, below" : "index") : ""} |`;
    }),
    "",
    "### Plans that are not index range scans",
    "",
  ];
  const others = plans.filter((p) => p.notIndex.length > 0);
  if (others.length === 0) lines.push("None: every measured query is answered by index scans.");
  for (const p of others) {
    lines.push(`- **${p.name}**: ${why(p) ?? "no reason known: a scan to look at"} (${p.notIndex.join("; ")})`, "", "  ```", ...p.text.split("\n").map((l) => `  ${l}`), "  ```", "");
  }
  return lines.join("\n");
}
