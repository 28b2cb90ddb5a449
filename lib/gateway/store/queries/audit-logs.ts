import { randomUUID } from "node:crypto";
import { and, arrayOverlaps, eq, gte, inArray, lte, notInArray, sql, type SQL } from "drizzle-orm";
import { alias, type AnyPgColumn } from "drizzle-orm/pg-core";
import type { LogEntry } from "@/lib/contract/audit-logs";
import type { Database } from "../client";
import { auditLog, auditLogTargets, organizations } from "../schema";

export interface AuditFilter {
  projectIds?: string[];
  actions?: string[];
  actorIds?: string[];
  actorEmails?: string[];
  actorTypes?: string[];
  targetIds?: string[];
  targetTypes?: string[];
  targetNames?: string[];
  locations?: string[];
  results?: string[];
  resultsNot?: string[];
  surfaces?: string[];
  /** The window's bounds in UTC to the microsecond (storeInstant), not cut to a Date's millisecond: the store compares them. */
  start?: string;
  end?: string;
}

/** A position in the (start_time desc, seq desc) order: start_time to the microsecond, and seq. */
export interface AuditPosition {
  t: string;
  s: number;
}

const a = auditLog;
/** The entries tested inside a search by target (the outer query reads `a`). */
const b = alias(auditLog, "b");
const targets = auditLogTargets;
type Entries = typeof a | typeof b;
const some = (values?: string[]): values is string[] => values !== undefined && values.length > 0;
/** Enumerated values (actions, types, results, surfaces) match whatever their case. */
const anyCase = (column: AnyPgColumn, values: string[]) => inArray(sql`lower(${column})`, values.map((v) => v.toLowerCase()));

function filterConditions(e: Entries, orgId: string, f: AuditFilter): Array<SQL | undefined> {
  return [
    eq(e.organizationId, orgId),
    some(f.projectIds) ? inArray(e.projectId, f.projectIds) : undefined,
    some(f.actions) ? anyCase(e.action, f.actions) : undefined,
    some(f.actorIds) ? inArray(e.actorId, f.actorIds) : undefined,
    // E-mails of users only: an operator's administrator e-mail is never matched.
    some(f.actorEmails) ? and(eq(e.actorType, "user"), inArray(sql`lower(${e.actorEmail})`, f.actorEmails.map((m) => m.toLowerCase()))) : undefined,
    some(f.actorTypes) ? anyCase(e.actorType, f.actorTypes) : undefined,
    some(f.targetIds) ? arrayOverlaps(e.targetIds, f.targetIds) : undefined,
    some(f.targetTypes) ? anyCase(e.targetType, f.targetTypes) : undefined,
    some(f.targetNames) ? arrayOverlaps(e.targetNames, f.targetNames) : undefined,
    some(f.locations) ? arrayOverlaps(e.locations, f.locations) : undefined,
    some(f.results) ? anyCase(e.result, f.results) : undefined,
    some(f.resultsNot) ? notInArray(sql`lower(${e.result})`, f.resultsNot.map((v) => v.toLowerCase())) : undefined,
    some(f.surfaces) ? anyCase(e.surface, f.surfaces) : undefined,
    f.start ? gte(e.startTime, sql`${f.start}::timestamptz`) : undefined,
    f.end ? lte(e.startTime, sql`${f.end}::timestamptz`) : undefined,
  ];
}

const position = sql<string>`to_char(${a.startTime} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
type Ordered = { startTime: AnyPgColumn; seq: AnyPgColumn };
const older = (t: Ordered, p: AuditPosition) => sql`(${t.startTime}, ${t.seq}) < (${p.t}::timestamptz, ${p.s})`;
const newer = (t: Ordered, p: AuditPosition) => sql`(${t.startTime}, ${t.seq}) > (${p.t}::timestamptz, ${p.s})`;
const beyond = (t: Ordered, toward: "older" | "newer", from?: AuditPosition) => (from ? (toward === "older" ? older(t, from) : newer(t, from)) : undefined);

type Row = typeof auditLog.$inferSelect & { position: string };

// NULLS LAST/FIRST exactly as the indexes (…, start_time DESC NULLS LAST, seq DESC NULLS LAST)
// are built: any other null ordering makes the planner sort every match.
const inOrder = (t: Ordered, toward: "older" | "newer") =>
  toward === "older" ? [sql`${t.startTime} desc nulls last`, sql`${t.seq} desc nulls last`] : [sql`${t.startTime} asc nulls first`, sql`${t.seq} asc nulls first`];

/**
 * The sequence numbers of one page of a search by target ids (or, without those, names; or,
 * without either, locations): for each value, its first `limit` matching entries from
 * audit_targets_search_idx, which gives a target's entries in time order; the page is the first
 * `limit` of their union. Each value costs one page of index entries (plus the entries the
 * other filters refuse), however many entries the target has, or however few: a location no
 * entry holds costs one index probe, where the time index read the whole organization.
 */
function byTarget(db: Database, orgId: string, f: AuditFilter, limit: number, toward: "older" | "newer", from?: AuditPosition): SQL | undefined {
  const [kind, values] = some(f.targetIds)
    ? (["id", f.targetIds] as const)
    : some(f.targetNames)
      ? (["name", f.targetNames] as const)
      : some(f.locations)
        ? (["location", f.locations] as const)
        : [];
  if (!kind) return undefined;
  const perValue = db
    .select({ seq: targets.seq })
    .from(targets)
    .innerJoin(b, eq(b.seq, targets.seq))
    .where(
      and(
        eq(targets.organizationId, orgId),
        eq(targets.kind, kind),
        sql`${targets.value} = "wanted"."value"`,
        beyond(targets, toward, from),
        // The window on the index's own copy of the time, so the walk starts and stops there (a
        // location holds a sixth of the organization: walked from its newest entry to a window a
        // year back, it read every entry in between).
        f.start ? gte(targets.startTime, sql`${f.start}::timestamptz`) : undefined,
        f.end ? lte(targets.startTime, sql`${f.end}::timestamptz`) : undefined,
        ...filterConditions(b, orgId, f),
      ),
    )
    .orderBy(...inOrder(targets, toward))
    .limit(limit);
  const wanted = sql`array[${sql.join(
    [...new Set(values)].map((v) => sql`${v}`),
    sql`, `,
  )}]::text[]`;
  return sql`${a.seq} in (select "page"."seq" from unnest(${wanted}) as "wanted"("value") cross join lateral (${perValue}) as "page")`;
}

/**
 * One page's query: entries older (or newer) than a position, in index order, no OFFSET.
 * With `newerFrom`, each row also tells whether an entry at or after that position
 * matches: the previous page's existence, in the same round trip.
 */
export function pageQuery(db: Database, orgId: string, f: AuditFilter, limit: number, toward: "older" | "newer", from?: AuditPosition, newerFrom?: AuditPosition) {
  const newer = newerFrom ? sql<boolean>`exists(${pageSeqs(db, orgId, f, 1, "newer", { t: newerFrom.t, s: newerFrom.s - 1 })})` : sql<boolean>`false`;
  return db
    .select({ row: a, position, newer })
    .from(a)
    .where(pageCondition(db, orgId, f, limit, toward, from))
    .orderBy(...inOrder(a, toward))
    .limit(limit);
}

function pageCondition(db: Database, orgId: string, f: AuditFilter, limit: number, toward: "older" | "newer", from?: AuditPosition): SQL | undefined {
  const target = byTarget(db, orgId, f, limit, toward, from);
  return target ? and(eq(a.organizationId, orgId), target) : and(...filterConditions(a, orgId, f), beyond(a, toward, from));
}

/** The sequence numbers of a page, for an existence test inside another query. */
function pageSeqs(db: Database, orgId: string, f: AuditFilter, limit: number, toward: "older" | "newer", from?: AuditPosition) {
  return db
    .select({ seq: a.seq })
    .from(a)
    .where(pageCondition(db, orgId, f, limit, toward, from))
    .orderBy(...inOrder(a, toward))
    .limit(limit);
}

async function readPage(db: Database, orgId: string, f: AuditFilter, limit: number, toward: "older" | "newer", from?: AuditPosition): Promise<Row[]> {
  const rows = await pageQuery(db, orgId, f, limit, toward, from);
  return rows.map(({ row, position: p }) => ({ ...row, position: p }));
}

/** A page older than `after`, and whether an entry at or newer than `after` matches (null when the page is empty). */
async function readOlderPage(db: Database, orgId: string, f: AuditFilter, limit: number, after: AuditPosition): Promise<{ rows: Row[]; newer: boolean | null }> {
  const rows = await pageQuery(db, orgId, f, limit, "older", after, after);
  return { rows: rows.map(({ row, position: p }) => ({ ...row, position: p })), newer: rows[0]?.newer ?? null };
}

async function exists(db: Database, orgId: string, f: AuditFilter, toward: "older" | "newer", from: AuditPosition): Promise<boolean> {
  return (await readPage(db, orgId, f, 1, toward, from)).length > 0;
}

const at = (row: Row): AuditPosition => ({ t: row.position, s: row.seq });

export interface AuditPage {
  items: LogEntry[];
  /** Where the next (older) page starts after; null on the last page. */
  next: AuditPosition | null;
  /** Where the previous (newer) page ends before; null on the first page. */
  prev: AuditPosition | null;
}

/**
 * One page, newest first, by keyset on (start_time, seq): the index
 * (organization_id, start_time desc, seq desc) serves every page alike.
 */
export async function auditPage(
  db: Database,
  orgId: string,
  f: AuditFilter,
  page: { limit: number; after?: AuditPosition; before?: AuditPosition },
): Promise<AuditPage> {
  let rows: Row[];
  let hasOlder: boolean;
  let hasNewer: boolean;
  if (page.before) {
    const found = await readPage(db, orgId, f, page.limit + 1, "newer", page.before);
    hasNewer = found.length > page.limit;
    rows = found.slice(0, page.limit).reverse();
    // Back at the top with a short page (entries came or went): show the full first page instead.
    if (!hasNewer && rows.length < page.limit) return auditPage(db, orgId, f, { limit: page.limit });
    const last = rows.at(-1);
    hasOlder = last ? await exists(db, orgId, f, "older", at(last)) : await exists(db, orgId, f, "older", page.before);
  } else {
    // Past a token, nothing lies between the token's entry and this page's first: entries
    // newer than the first are those at or newer than the token, asked in the same query.
    const { rows: found, newer } = page.after ? await readOlderPage(db, orgId, f, page.limit + 1, page.after) : { rows: await readPage(db, orgId, f, page.limit + 1, "older"), newer: false };
    hasOlder = found.length > page.limit;
    rows = found.slice(0, page.limit);
    hasNewer = newer ?? (page.after ? await exists(db, orgId, f, "newer", page.after) : false);
  }
  const first = rows[0];
  const last = rows.at(-1);
  return {
    items: rows.map(toLogEntry),
    next: hasOlder && last ? at(last) : null,
    // An empty page past the end: the previous page is the one that ends with the token's own entry.
    prev: hasNewer ? (first ? at(first) : page.after ? { t: page.after.t, s: page.after.s - 1 } : null) : null,
  };
}

function toLogEntry(row: Row): LogEntry {
  return {
    action: row.action,
    action_detail: row.actionDetail,
    actor_email: row.actorEmail,
    actor_id: row.actorId,
    actor_type: row.actorType,
    client_ip: row.clientIp,
    end_time: row.endTime.toISOString(),
    error_message: row.errorMessage,
    locations: row.locations,
    organization_id: row.organizationId,
    organization_name: row.organizationName,
    project_id: row.projectId ?? "",
    project_name: row.projectName ?? "",
    result: row.result,
    start_time: row.startTime.toISOString(),
    surface: row.surface,
    target_ids: row.targetIds,
    target_names: row.targetNames,
    target_type: row.targetType,
  };
}

export type NewAuditEntry = Omit<typeof auditLog.$inferInsert, "id" | "organizationName">;

/** Files an entry under its organization (named as it is now); false when the organization does not exist. */
/** Text cut to at most `max` characters, an ellipsis marking the cut. */
export function boundText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The longest target id or name, or location, filed: each is a row of the target search's index (audit_log_targets), which a long one would not fit. */
const MAX_TARGET = 256;

export async function insertAuditEntry(db: Database, entry: NewAuditEntry): Promise<boolean> {
  const [org] = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, entry.organizationId));
  if (!org) return false;
  const targets = (values: string[] | undefined) => values?.map((v) => boundText(v, MAX_TARGET));
  await db.insert(auditLog).values({ id: randomUUID(), organizationName: org.name, ...entry, targetIds: targets(entry.targetIds), targetNames: targets(entry.targetNames), locations: targets(entry.locations) });
  return true;
}
