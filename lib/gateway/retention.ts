import { sql } from "drizzle-orm";
import type { Logger } from "./logger";
import { resultRows, type Database } from "./store/client";

/**
 * How long the gateway keeps audit entries and usage rows (STRATUS_AUDIT_RETENTION_DAYS,
 * STRATUS_USAGE_RETENTION_DAYS): a number of days, or undefined to keep them forever.
 */
export interface RetentionPolicy {
  auditDays?: number;
  usageDays?: number;
}

export interface PurgeOptions {
  now?: Date;
  /** Rows deleted by one statement: a purge never holds locks on more at once. */
  batchSize?: number;
}

const DAY_MS = 86_400_000;
export const PURGE_BATCH = 5_000;
/** How often a running gateway purges: an hour, the first time a minute after it starts. */
export const PURGE_INTERVAL_MS = 3_600_000;
export const FIRST_PURGE_MS = 60_000;

/**
 * The organizations a table holds rows of, read from the front of its (organization_id, …)
 * index one value at a time, so that it costs one index probe per organization.
 */
async function organizationsOf(db: Database, table: "audit_log" | "usage_records"): Promise<string[]> {
  const t = sql.identifier(table);
  const rows = resultRows<{ id: string }>(
    await db.execute(sql`
      with recursive orgs(id) as (
        (select organization_id from ${t} order by organization_id limit 1)
        union all
        select (select organization_id from ${t} where organization_id > orgs.id order by organization_id limit 1) from orgs where orgs.id is not null
      )
      select id from orgs where id is not null`),
  );
  return rows.map((r) => r.id);
}

/** Deletes in batches of `batchSize` until a batch comes back short; the count deleted. */
async function inBatches(batchSize: number, deleteBatch: () => Promise<number>): Promise<number> {
  let deleted = 0;
  for (;;) {
    const n = await deleteBatch();
    deleted += n;
    if (n < batchSize) return deleted;
    // Let requests in between two batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Deletes the audit entries that started, and the usage of the days that ended, more than
 * the policy's days before `now`, organization by organization, in bounded batches (each
 * one statement on the (organization_id, time) index). An unset number of days keeps all.
 * The targets of deleted entries go with them (foreign key), the daily sums follow their rows.
 */
export async function purgeExpired(db: Database, policy: RetentionPolicy, options: PurgeOptions = {}): Promise<{ audit: number; usage: number }> {
  const now = options.now ?? new Date();
  const batchSize = options.batchSize ?? PURGE_BATCH;
  let audit = 0;
  let usage = 0;
  if (policy.auditDays !== undefined) {
    const cutoff = new Date(now.getTime() - policy.auditDays * DAY_MS);
    for (const orgId of await organizationsOf(db, "audit_log")) {
      audit += await inBatches(batchSize, async () => {
        const rows = resultRows<{ seq: number }>(
          await db.execute(sql`delete from audit_log where seq in (
            select seq from audit_log where organization_id = ${orgId} and start_time < ${cutoff.toISOString()}::timestamptz limit ${batchSize}
          ) returning seq`),
        );
        return rows.length;
      });
    }
  }
  if (policy.usageDays !== undefined) {
    // Usage is kept by day: a day older than the cutoff's day goes whole.
    const cutoff = new Date(now.getTime() - policy.usageDays * DAY_MS).toISOString().slice(0, 10);
    for (const orgId of await organizationsOf(db, "usage_records")) {
      usage += await inBatches(batchSize, async () => {
        const rows = resultRows<{ seq: number }>(
          await db.execute(sql`delete from usage_records where seq in (
            select seq from usage_records where organization_id = ${orgId} and usage_date < ${cutoff}::date limit ${batchSize}
          ) returning seq`),
        );
        return rows.length;
      });
    }
  }
  return { audit, usage };
}

/**
 * Purges on a timer while the gateway runs (nothing when the policy keeps everything);
 * stop() cancels the timer and waits for a purge under way.
 */
export function scheduleRetention(db: Database, policy: RetentionPolicy, logger: Logger): { stop(): Promise<void> } {
  if (policy.auditDays === undefined && policy.usageDays === undefined) return { stop: async () => {} };
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = purgeExpired(db, policy)
      .then(
        (deleted) => {
          if (deleted.audit > 0 || deleted.usage > 0) logger.info("retention: expired rows deleted", { audit_entries: deleted.audit, usage_rows: deleted.usage });
        },
        (error: unknown) => logger.error("retention: purge failed", { error: error instanceof Error ? error.message : String(error) }),
      )
      .finally(() => {
        running = null;
      });
  };
  const first = setTimeout(tick, FIRST_PURGE_MS);
  const every = setInterval(tick, PURGE_INTERVAL_MS);
  first.unref();
  every.unref();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(first);
      clearInterval(every);
      await running;
    },
  };
}
