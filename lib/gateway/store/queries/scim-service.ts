import { randomUUID } from "node:crypto";
import { and, asc, count, eq, inArray, isNull, ne, or, sql, type SQL } from "drizzle-orm";
import { unionAll } from "drizzle-orm/pg-core";
import { parse as parseScimFilter, type AttrExp, type Filter } from "scim2-parse-filter";
import { timestampSchema } from "@/lib/contract/time";
import { resultRows, type Database } from "../client";
import { accountDeciders, decidesAlone } from "./access";
import { deleteOrganizationSsoKeys } from "./api-keys";
import { memberships, roleBindings, roles, scimGroupMappings, scimGroupMembers, scimGroups, scimIntegrations, scimTokens, users } from "../schema";

/**
 * The SCIM 2.0 service's reads and writes. SCIM filters are parsed by scim2-parse-filter and
 * turned here into SQL over indexed columns (userName and externalId per organization, the
 * account's e-mail, group names per integration); nothing above this file sees SQL.
 */

export class ScimFilterError extends Error {}

export interface ScimTokenAuth {
  tokenId: string;
  integrationId: string;
  organizationId: string;
  integrationName: string;
  integrationStatus: string;
  /** Who made the token: it suspends or removes an owner only while they are an active owner (see lockOwners). */
  madeBy: string;
  expiresAt: Date;
  lastUsedAt: Date | null;
}

export async function findScimTokenByHash(db: Database, secretHash: string): Promise<ScimTokenAuth | undefined> {
  const [row] = await db
    .select({
      tokenId: scimTokens.id,
      integrationId: scimTokens.integrationId,
      organizationId: scimTokens.organizationId,
      integrationName: scimIntegrations.name,
      integrationStatus: scimIntegrations.status,
      madeBy: scimTokens.userId,
      expiresAt: scimTokens.expiresAt,
      lastUsedAt: scimTokens.lastUsedAt,
    })
    .from(scimTokens)
    .innerJoin(scimIntegrations, eq(scimIntegrations.id, scimTokens.integrationId))
    .where(eq(scimTokens.secretHash, secretHash));
  return row;
}

/** The token's last use and its integration's last activity. */
export async function touchScimToken(db: Database, tokenId: string, integrationId: string, now: Date): Promise<void> {
  await db.update(scimTokens).set({ lastUsedAt: now }).where(eq(scimTokens.id, tokenId));
  await db.update(scimIntegrations).set({ lastActivityAt: now }).where(eq(scimIntegrations.id, integrationId));
}

// ---------------------------------------------------------------- people

export interface PersonRow {
  userId: string;
  email: string;
  accountName: string;
  relation: string;
  status: string;
  source: string;
  createdAt: Date;
  updatedAt: Date;
  scimUserName: string | null;
  externalId: string | null;
  scimAttributes: Record<string, unknown> | null;
  scimIntegrationId: string | null;
}

const personColumns = {
  userId: memberships.userId,
  email: users.email,
  accountName: users.name,
  relation: memberships.relation,
  status: memberships.status,
  source: memberships.source,
  createdAt: memberships.createdAt,
  updatedAt: memberships.updatedAt,
  scimUserName: memberships.scimUserName,
  externalId: memberships.externalId,
  scimAttributes: memberships.scimAttributes,
  scimIntegrationId: memberships.scimIntegrationId,
};

/** The userName a person answers to: as the provider set it, else the account's e-mail. */
const userNameSql = sql`coalesce(${memberships.scimUserName}, ${users.email})`;

/**
 * Takes the transaction's advisory lock on a name people of the organization answer SCIM to (a
 * userName, or the e-mail of a person without one), before checking that no one else has it: the
 * provisioning function takes the same lock (migration 0014), so two requests giving one name to
 * two people run one after the other, and the second finds the first's person.
 */
export async function lockUserName(tx: Database, orgId: string, name: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('stratus.scim_user_name:' || ${orgId}::text || ':' || lower(${name}::text), 0))`);
}

/** Ids of the organization's people whose userName is this one, compared case-insensitively: two index lookups. */
export async function userIdsByUserName(db: Database, orgId: string, value: string): Promise<string[]> {
  const rows = await unionAll(
    db
      .select({ userId: memberships.userId })
      .from(memberships)
      .where(and(eq(memberships.organizationId, orgId), sql`lower(${memberships.scimUserName}) = lower(${value})`)),
    db
      .select({ userId: memberships.userId })
      .from(users)
      .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.organizationId, orgId)))
      .where(and(inArray(users.email, [...new Set([value, value.toLowerCase()])]), isNull(memberships.scimUserName))),
  );
  return rows.map((r) => r.userId);
}

/** Ids of the organization's people with this e-mail: their account's, or one of their SCIM `emails` values (two index lookups). */
export async function userIdsByEmail(db: Database, orgId: string, value: string): Promise<string[]> {
  const lower = value.toLowerCase();
  const rows = await unionAll(
    db
      .select({ userId: memberships.userId })
      .from(users)
      .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.organizationId, orgId)))
      .where(inArray(users.email, [...new Set([value, lower])])),
    db
      .select({ userId: memberships.userId })
      .from(memberships)
      .where(and(eq(memberships.organizationId, orgId), sql`${memberships.scimEmails} @> array[${lower}]::text[]`)),
  );
  return [...new Set(rows.map((r) => r.userId))];
}

/** The indexed lookups of a filter (`userName eq`, `emails.value eq`), keyed `attribute value`. */
type Lookups = Map<string, string[]>;
const LOOKUPS: Record<string, (db: Database, orgId: string, value: string) => Promise<string[]>> = {
  username: userIdsByUserName,
  "emails.value": userIdsByEmail,
};
const lookupKey = (attr: string, value: string) => `${attr} ${value}`;

/** Resolves a filter's `userName eq` and `emails.value eq` terms to ids before the query, so the query is a primary-key lookup. */
async function resolveLookups(db: Database, orgId: string, f: Filter, out: Lookups): Promise<void> {
  if (f.op === "and" || f.op === "or") for (const p of f.filters) await resolveLookups(db, orgId, p, out);
  else if (f.op === "not") await resolveLookups(db, orgId, f.filter, out);
  else if (f.op === "[]" && lowerAttr(f.attrPath) === "emails") await resolveLookups(db, orgId, prefixed(f.valFilter, "emails"), out);
  else if (f.op === "eq" && typeof (f as { compValue: unknown }).compValue === "string") {
    const named = lowerAttr((f as AttrExp).attrPath);
    const attr = named === "emails" ? "emails.value" : named;
    const lookup = LOOKUPS[attr];
    const value = (f as { compValue: string }).compValue;
    const key = lookupKey(attr, value);
    if (lookup && !out.has(key)) out.set(key, await lookup(db, orgId, value));
  }
}

const idsIn = (ids: string[]): SQL => (ids.length ? inArray(memberships.userId, ids) : sql`false`);

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (ch) => `\\${ch}`);

function stringCompare(expr: SQL, op: string, value: unknown, attr: string): SQL {
  if (op === "pr") return sql`(${expr} is not null and ${expr} <> '')`;
  if (typeof value !== "string") throw new ScimFilterError(`${attr} is compared with a string`);
  switch (op) {
    case "eq":
      return sql`lower(${expr}) = lower(${value})`;
    case "ne":
      return sql`(${expr} is null or lower(${expr}) <> lower(${value}))`;
    case "co":
      return sql`${expr} ilike ${`%${escapeLike(value)}%`}`;
    case "sw":
      return sql`${expr} ilike ${`${escapeLike(value)}%`}`;
    case "ew":
      return sql`${expr} ilike ${`%${escapeLike(value)}`}`;
    case "gt":
      return sql`${expr} > ${value}`;
    case "ge":
      return sql`${expr} >= ${value}`;
    case "lt":
      return sql`${expr} < ${value}`;
    case "le":
      return sql`${expr} <= ${value}`;
    default:
      throw new ScimFilterError(`operator ${op} is not supported`);
  }
}

/** RFC 3339 date-times, as SCIM's dateTime is (RFC 7643 §2.3.5): a date with a time and a zone or Z. */
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i;

const DATE_OPERATORS: Record<string, string> = { eq: "=", ne: "<>", gt: ">", ge: ">=", lt: "<", le: "<=" };

/** A dateTime attribute compared as a moment (RFC 7644 §3.4.2.2), not as the text it is written as. */
function dateCompare(column: SQL, op: string, value: unknown, attr: string): SQL {
  if (op === "pr") return sql`${column} is not null`;
  // The contract's own timestamp rule (a real calendar date, years 0001-9999 in UTC), on the value
  // written as it takes it: seconds given and upper case (RFC 3339 allows both omitted and lower).
  const written = typeof value === "string" && DATE_TIME.test(value) ? value.toUpperCase().replace(/T(\d\d:\d\d)(?=Z|[+-])/, "T$1:00") : undefined;
  if (!written || !timestampSchema.safeParse(written).success) {
    throw new ScimFilterError(`${attr} is compared with an RFC 3339 date-time of a real day between the years 0001 and 9999`);
  }
  const at = new Date(written);
  const operator = Object.hasOwn(DATE_OPERATORS, op) ? DATE_OPERATORS[op] : undefined;
  if (!operator) throw new ScimFilterError(`${attr} is compared with eq, ne, gt, ge, lt or le`);
  // Stored to the microsecond and answered to the millisecond: a moment is its whole millisecond.
  return sql`date_trunc('milliseconds', ${column}) ${sql.raw(operator)} ${at.toISOString()}::timestamptz`;
}

/**
 * How large a filter may be. Identity providers send one or two terms (`userName eq "…"`); these
 * bounds are far above that, and keep a filter from building a query the store cannot plan or
 * from holding the store (one connection on PGlite) with hundreds of scans.
 */
export const FILTER_LIMITS = { length: 4_096, depth: 16, terms: 50 } as const;

/** The filter's deepest nesting and its number of attribute expressions. */
function filterSize(f: Filter, depth = 1): { depth: number; terms: number } {
  const children = f.op === "and" || f.op === "or" ? f.filters : f.op === "not" ? [f.filter] : f.op === "[]" ? [f.valFilter] : [];
  if (children.length === 0) return { depth, terms: 1 };
  let deepest = depth;
  let terms = 0;
  for (const child of children) {
    const size = filterSize(child, depth + 1);
    deepest = Math.max(deepest, size.depth);
    terms += size.terms;
  }
  return { depth: deepest, terms };
}

function parseFilter(text: string): Filter {
  if (text.length > FILTER_LIMITS.length) throw new ScimFilterError(`the filter is longer than ${FILTER_LIMITS.length} characters`);
  let parsed: Filter;
  try {
    parsed = parseScimFilter(text);
  } catch (error) {
    throw new ScimFilterError(`the filter cannot be parsed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const size = filterSize(parsed);
  if (size.depth > FILTER_LIMITS.depth) throw new ScimFilterError(`the filter nests deeper than ${FILTER_LIMITS.depth} levels`);
  if (size.terms > FILTER_LIMITS.terms) throw new ScimFilterError(`the filter has more than ${FILTER_LIMITS.terms} comparisons`);
  return parsed;
}

const lowerAttr = (attr: string) => attr.replace(/^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/i, "").toLowerCase();

function userCondition(orgId: string, f: Filter, names: Lookups = new Map()): SQL {
  if (f.op === "and" || f.op === "or") {
    const parts = f.filters.map((p) => userCondition(orgId, p, names));
    return (f.op === "and" ? and(...parts) : or(...parts)) ?? sql`true`;
  }
  if (f.op === "not") return sql`not (${userCondition(orgId, f.filter, names)})`;
  if (f.op === "[]") {
    if (lowerAttr(f.attrPath) !== "emails") throw new ScimFilterError(`value filters are supported on emails only`);
    // One e-mail entry must match the whole value filter; a `value eq` in it narrows by index first.
    const value = f.valFilter.op === "eq" ? f.valFilter : f.valFilter.op === "and" ? f.valFilter.filters.find((p) => p.op === "eq" && lowerAttr((p as AttrExp).attrPath) === "value") : undefined;
    const narrowed = value && lowerAttr((value as AttrExp).attrPath) === "value" ? userCondition(orgId, prefixed(value, "emails"), names) : undefined;
    return and(narrowed, anyEmail(f.valFilter)) ?? sql`false`;
  }
  const e = f as AttrExp;
  const attr = lowerAttr(e.attrPath);
  const value = "compValue" in e ? e.compValue : undefined;
  switch (attr) {
    case "username":
      if (f.op === "eq" && typeof value === "string") return idsIn(names.get(lookupKey("username", value)) ?? []);
      return stringCompare(userNameSql, f.op, value, "userName");
    case "id":
      if (f.op === "eq" && typeof value === "string") return eq(memberships.userId, value);
      return stringCompare(sql`${memberships.userId}`, f.op, value, "id");
    case "externalid":
      if (f.op === "eq" && typeof value === "string") return eq(memberships.externalId, value);
      return stringCompare(sql`${memberships.externalId}`, f.op, value, "externalId");
    case "emails":
    case "emails.value":
      if (f.op === "eq" && typeof value === "string") return idsIn(names.get(lookupKey("emails.value", value)) ?? []);
      return anyEmail({ ...e, attrPath: "value" } as Filter);
    case "emails.type":
    case "emails.primary":
    case "emails.display":
      return anyEmail({ ...e, attrPath: attr.slice("emails.".length) } as Filter);
    case "displayname":
      return stringCompare(sql`coalesce(${memberships.scimAttributes}->>'displayName', ${users.name})`, f.op, value, "displayName");
    case "name.givenname":
      return stringCompare(sql`(${memberships.scimAttributes}->'name'->>'givenName')`, f.op, value, "name.givenName");
    case "name.familyname":
      return stringCompare(sql`(${memberships.scimAttributes}->'name'->>'familyName')`, f.op, value, "name.familyName");
    case "name.formatted":
      return stringCompare(sql`(${memberships.scimAttributes}->'name'->>'formatted')`, f.op, value, "name.formatted");
    case "active": {
      if (f.op === "pr") return sql`true`;
      // Entra ID writes booleans as strings ("True"); any other string is no boolean.
      const active = typeof value === "string" ? ({ true: true, false: false } as Record<string, boolean>)[value.toLowerCase()] : value;
      if (typeof active !== "boolean" || (f.op !== "eq" && f.op !== "ne")) throw new ScimFilterError("active is compared with eq or ne and a boolean");
      return (f.op === "eq") === active ? eq(memberships.status, "active") : ne(memberships.status, "active");
    }
    case "meta.created":
      return dateCompare(sql`${memberships.createdAt}`, f.op, value, "meta.created");
    case "meta.lastmodified":
      return dateCompare(sql`${memberships.updatedAt}`, f.op, value, "meta.lastModified");
    default:
      throw new ScimFilterError(`filtering on ${e.attrPath} is not supported`);
  }
}

/** The person's `emails` as their resource shows them: as the provider sent them, else the account's e-mail. */
const emailEntries = sql`jsonb_array_elements(case when jsonb_typeof(${memberships.scimAttributes}->'emails') = 'array' then ${memberships.scimAttributes}->'emails'
  else jsonb_build_array(jsonb_build_object('value', ${users.email}, 'type', 'work', 'primary', true)) end)`;

/** Whether one of the person's e-mail entries matches a filter over an entry's own attributes (value, type, primary, display). */
function anyEmail(f: Filter): SQL {
  return sql`exists (select 1 from ${emailEntries} entry where ${emailEntryCondition(f)})`;
}

function emailEntryCondition(f: Filter): SQL {
  if (f.op === "and" || f.op === "or") {
    const parts = f.filters.map(emailEntryCondition);
    return (f.op === "and" ? and(...parts) : or(...parts)) ?? sql`true`;
  }
  if (f.op === "not") return sql`not (${emailEntryCondition(f.filter)})`;
  if (f.op === "[]") throw new ScimFilterError("value filters do not nest");
  const e = f as AttrExp;
  const attr = lowerAttr(e.attrPath);
  const value = "compValue" in e ? e.compValue : undefined;
  if (attr === "primary") {
    if (f.op === "pr") return sql`(entry->'primary') is not null`;
    const primary = typeof value === "string" ? value.toLowerCase() === "true" : value;
    if (typeof primary !== "boolean" || (f.op !== "eq" && f.op !== "ne")) throw new ScimFilterError("emails.primary is compared with eq or ne and a boolean");
    return (f.op === "eq") === primary ? sql`coalesce((entry->>'primary')::text, '') in ('true', 'True')` : sql`coalesce((entry->>'primary')::text, '') not in ('true', 'True')`;
  }
  if (attr !== "value" && attr !== "type" && attr !== "display") throw new ScimFilterError(`filtering on emails.${e.attrPath} is not supported`);
  return stringCompare(sql`(entry->>${attr})`, f.op, value, `emails.${attr}`);
}

function prefixed(f: Filter, parent: string): Filter {
  if (f.op === "and" || f.op === "or") return { ...f, filters: f.filters.map((p) => prefixed(p, parent)) };
  if (f.op === "not") return { ...f, filter: prefixed(f.filter, parent) };
  if (f.op === "[]") return f;
  return { ...f, attrPath: `${parent}.${(f as AttrExp).attrPath}` } as Filter;
}

export interface Page {
  offset: number;
  limit: number;
}

/** SCIM lists people in creation order, then by id (the membership index `memberships_org_created_idx`). */
const LISTING_ORDER = [asc(memberships.createdAt), asc(memberships.userId)];

export async function listPeople(db: Database, orgId: string, filter: string | undefined, page: Page): Promise<{ total: number; rows: PersonRow[] }> {
  let condition: SQL | undefined;
  if (filter) {
    const parsed = parseFilter(filter);
    const names: Lookups = new Map();
    await resolveLookups(db, orgId, parsed, names);
    // The lookup an identity provider makes before each create (`userName eq`, `emails.value eq`)
    // found the organization's people already: they are the answer, counted without another statement.
    const found = names.size === 1 && parsed.op === "eq" ? [...names.values()][0]! : undefined;
    if (found) {
      const rows = found.length && page.limit > 0 ? await peopleByIds(db, orgId, found).offset(page.offset).limit(page.limit) : [];
      return { total: found.length, rows };
    }
    condition = userCondition(orgId, parsed, names);
  }
  const where = and(eq(memberships.organizationId, orgId), condition);
  // Without a filter the account is not needed to count or to find the page: the membership index alone serves both.
  const ids = () =>
    condition
    ? db.select({ userId: memberships.userId }).from(memberships).innerJoin(users, eq(users.id, memberships.userId)).where(where)
    : db.select({ userId: memberships.userId }).from(memberships).where(where);
  const [total] = await db.select({ n: count() }).from(ids().as("matching"));
  if (page.limit <= 0) return { total: total?.n ?? 0, rows: [] };
  const pageIds = (await ids().orderBy(...LISTING_ORDER).offset(page.offset).limit(page.limit)).map((r) => r.userId);
  const rows = pageIds.length ? await peopleByIds(db, orgId, pageIds) : [];
  return { total: total?.n ?? 0, rows };
}

/** The organization's people among these ids, in the order SCIM lists them (creation, then id). */
function peopleByIds(db: Database, orgId: string, ids: string[]) {
  return db
    .select(personColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, orgId), inArray(memberships.userId, ids)))
    .orderBy(...LISTING_ORDER);
}

/** The person, if a member; `update` holds their membership until the transaction ends (a change reads, changes and writes it whole). */
export async function findPerson(db: Database, orgId: string, userId: string, lock?: "update"): Promise<PersonRow | undefined> {
  const query = db
    .select(personColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, orgId), eq(memberships.userId, userId)));
  const [row] = lock ? await query.for(lock, { of: memberships }) : await query;
  return row;
}

export async function findPersonByUserName(db: Database, orgId: string, userName: string, exceptUserId?: string): Promise<PersonRow | undefined> {
  const ids = (await userIdsByUserName(db, orgId, userName)).filter((id) => id !== exceptUserId);
  return ids.length ? findPerson(db, orgId, ids[0]!) : undefined;
}

export interface PersonFields {
  scimUserName: string;
  externalId: string | null;
  scimAttributes: Record<string, unknown>;
  status: "active" | "suspended";
}

export interface ScimAuditEntry {
  organizationId: string;
  action: string;
  actionDetail: string;
  actorId: string;
  actorName: string;
  clientIp: string;
  startTime: Date;
  targetIds: string[];
  targetNames: string[];
  targetType: string;
}

const textArray = (values: string[]) => (values.length ? sql`array[${sql.join(values.map((v) => sql`${v}`), sql`, `)}]::text[]` : sql`array[]::text[]`);

/** An audit entry of a SCIM change (actor type and surface SCIM), filed under the organization as it is named now: one statement. */
export async function insertScimAuditEntry(db: Database, e: ScimAuditEntry): Promise<void> {
  await db.execute(sql`
    insert into audit_log (id, organization_id, organization_name, project_id, project_name, action, action_detail, actor_id, actor_email, actor_type,
                           client_ip, start_time, end_time, result, error_message, surface, locations, target_ids, target_names, target_type)
    select ${randomUUID()}, o.id, o.name, null, null, ${e.action}, ${e.actionDetail}, ${e.actorId}, ${e.actorName}, 'SCIM',
           ${e.clientIp}, ${e.startTime.toISOString()}, ${new Date().toISOString()}, 'OK', '', 'SCIM', array[]::text[],
           ${textArray(e.targetIds)}, ${textArray(e.targetNames)}, ${e.targetType}
    from organizations o where o.id = ${e.organizationId}`);
}

/** Lower-cased e-mail values of a SCIM User's `emails`, kept beside the resource for the `emails.value eq` lookup. */
export function scimEmailValues(attributes: Record<string, unknown>): string[] {
  const emails = attributes.emails;
  if (!Array.isArray(emails)) return [];
  const values = emails.map((e) => (e as { value?: unknown } | null)?.value).filter((v): v is string => typeof v === "string");
  return [...new Set(values.map((v) => v.toLowerCase()))];
}

export type ProvisionOutcome =
  | { outcome: "created"; account: { id: string; email: string; name: string } }
  | { outcome: "userNameTaken" }
  | { outcome: "alreadyMember" };

/**
 * Provisions a person in one call of the store's function `scim_provision_person` (migration
 * 0006; PostgreSQL runs it atomically): the userName must be free in the organization, the
 * account is the one with this e-mail or a new one, the membership carries the baseline role,
 * and the audit entry names the person. When the person cannot be added nothing is written,
 * and the outcome says why.
 */
export async function provisionPerson(
  db: Database,
  input: { orgId: string; integrationId: string; now: Date; email: string; accountName: string } & PersonFields,
  actor: { actorId: string; actorName: string; clientIp: string; startTime: Date },
): Promise<ProvisionOutcome> {
  const result = await db.execute(sql`
    select outcome, id, email, name from scim_provision_person(
      ${input.orgId}, ${input.integrationId}, ${input.scimUserName}, ${input.externalId}, ${JSON.stringify(input.scimAttributes)}::jsonb,
      ${textArray(scimEmailValues(input.scimAttributes))}, ${input.status}, ${input.email}, ${input.accountName}, ${input.now.toISOString()}::timestamptz,
      ${actor.actorId}, ${actor.actorName}, ${actor.clientIp}, ${actor.startTime.toISOString()}::timestamptz)`);
  const row = resultRows<ProvisionRow>(result)[0];
  if (row?.outcome === "created" && row.id) return { outcome: "created", account: { id: row.id, email: row.email ?? input.email, name: row.name ?? input.accountName } };
  return { outcome: row?.outcome === "alreadyMember" ? "alreadyMember" : "userNameTaken" };
}

interface ProvisionRow {
  outcome: string;
  id: string | null;
  email: string | null;
  name: string | null;
}

export async function updatePerson(
  db: Database,
  input: { orgId: string; userId: string; integrationId: string; now: Date; accountName?: string } & PersonFields,
): Promise<void> {
  await db
    .update(memberships)
    .set({
      status: input.status,
      scimUserName: input.scimUserName,
      externalId: input.externalId,
      scimAttributes: input.scimAttributes,
      scimEmails: scimEmailValues(input.scimAttributes),
      scimIntegrationId: sql`coalesce(${memberships.scimIntegrationId}, ${input.integrationId})`,
      updatedAt: input.now,
    })
    .where(and(eq(memberships.organizationId, input.orgId), eq(memberships.userId, input.userId)));
  if (input.status === "suspended") await deleteOrganizationSsoKeys(db, input.orgId, input.userId);
  // The account's own name only where this organization decides for the account (its home, or the only
  // one it belongs to): an organization that added the account later must not rename it in the others'
  // people lists (its displayName is kept with the membership either way).
  if (input.accountName !== undefined && decidesAlone(await accountDeciders(db, input.userId), input.orgId)) {
    await db.update(users).set({ name: input.accountName }).where(eq(users.id, input.userId));
  }
}

/** Display names of people, by user id. */
export async function displayNames(db: Database, orgId: string, userIds: string[]): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .select({ userId: memberships.userId, display: sql<string>`coalesce(${memberships.scimAttributes}->>'displayName', nullif(${users.name}, ''), ${userNameSql})` })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, orgId), inArray(memberships.userId, userIds)));
  return new Map(rows.map((r) => [r.userId, r.display]));
}

/** Which of these ids are people of the organization. */
/**
 * Which of these users are people of the organization. `share` holds their memberships, in one order,
 * until the transaction ends: a removal of one of them (which takes its membership first) runs wholly
 * before or after.
 */
export async function peopleAmong(db: Database, orgId: string, userIds: string[], lock?: "share"): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const query = db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.organizationId, orgId), inArray(memberships.userId, userIds)))
    .orderBy(asc(memberships.userId));
  const rows = lock ? await query.for(lock, { of: memberships }) : await query;
  return new Set(rows.map((r) => r.userId));
}

// ---------------------------------------------------------------- groups

export type GroupRow = typeof scimGroups.$inferSelect;

function groupCondition(f: Filter): SQL {
  if (f.op === "and" || f.op === "or") {
    const parts = f.filters.map(groupCondition);
    return (f.op === "and" ? and(...parts) : or(...parts)) ?? sql`true`;
  }
  if (f.op === "not") return sql`not (${groupCondition(f.filter)})`;
  if (f.op === "[]") {
    if (lowerAttr(f.attrPath) !== "members") throw new ScimFilterError("value filters are supported on members only");
    return groupCondition(prefixed(f.valFilter, "members"));
  }
  const e = f as AttrExp;
  const attr = lowerAttr(e.attrPath);
  const value = "compValue" in e ? e.compValue : undefined;
  switch (attr) {
    case "displayname":
      return stringCompare(sql`${scimGroups.displayName}`, f.op, value, "displayName");
    case "externalid":
      if (f.op === "eq" && typeof value === "string") return eq(scimGroups.externalId, value);
      return stringCompare(sql`${scimGroups.externalId}`, f.op, value, "externalId");
    case "id":
      if (f.op === "eq" && typeof value === "string") return eq(scimGroups.id, value);
      return stringCompare(sql`${scimGroups.id}`, f.op, value, "id");
    case "members":
    case "members.value":
      if (f.op !== "eq" || typeof value !== "string") throw new ScimFilterError("members.value is compared with eq");
      return sql`exists (select 1 from scim_group_members gm where gm.group_id = ${scimGroups.id} and gm.user_id = ${value})`;
    default:
      throw new ScimFilterError(`filtering on ${e.attrPath} is not supported`);
  }
}

export async function listGroups(db: Database, integrationId: string, filter: string | undefined, page: Page): Promise<{ total: number; rows: GroupRow[] }> {
  const where = and(eq(scimGroups.integrationId, integrationId), filter ? groupCondition(parseFilter(filter)) : undefined);
  const [total] = await db.select({ n: count() }).from(scimGroups).where(where);
  const rows = page.limit > 0 ? await db.select().from(scimGroups).where(where).orderBy(asc(scimGroups.createdAt), asc(scimGroups.id)).offset(page.offset).limit(page.limit) : [];
  return { total: total?.n ?? 0, rows };
}

/** The group; `update` holds it until the transaction ends (a change reads, changes and writes it whole). */
export async function findGroup(db: Database, integrationId: string, groupId: string, lock?: "update"): Promise<GroupRow | undefined> {
  const query = db
    .select()
    .from(scimGroups)
    .where(and(eq(scimGroups.integrationId, integrationId), eq(scimGroups.id, groupId)));
  const [row] = lock ? await query.for(lock) : await query;
  return row;
}

export async function findGroupByName(db: Database, integrationId: string, displayName: string, exceptId?: string): Promise<GroupRow | undefined> {
  const [row] = await db
    .select()
    .from(scimGroups)
    .where(
      and(
        eq(scimGroups.integrationId, integrationId),
        sql`lower(${scimGroups.displayName}) = lower(${displayName})`,
        exceptId ? ne(scimGroups.id, exceptId) : undefined,
      ),
    )
    .limit(1);
  return row;
}

export async function groupMemberIds(db: Database, groupIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return out;
  const rows = await db
    .select({ groupId: scimGroupMembers.groupId, userId: scimGroupMembers.userId })
    .from(scimGroupMembers)
    .where(inArray(scimGroupMembers.groupId, groupIds))
    .orderBy(asc(scimGroupMembers.createdAt), asc(scimGroupMembers.userId));
  for (const r of rows) out.get(r.groupId)?.push(r.userId);
  return out;
}

export async function insertGroup(
  db: Database,
  input: { orgId: string; integrationId: string; displayName: string; externalId: string | null; now: Date },
): Promise<GroupRow> {
  const [row] = await db
    .insert(scimGroups)
    .values({ id: randomUUID(), organizationId: input.orgId, integrationId: input.integrationId, displayName: input.displayName, externalId: input.externalId, createdAt: input.now, updatedAt: input.now })
    .returning();
  if (!row) throw new Error("group insert returned nothing");
  return row;
}

export async function updateGroup(db: Database, groupId: string, input: { displayName: string; externalId: string | null; now: Date }): Promise<void> {
  await db.update(scimGroups).set({ displayName: input.displayName, externalId: input.externalId, updatedAt: input.now }).where(eq(scimGroups.id, groupId));
}

export async function setGroupMembers(db: Database, groupId: string, add: string[], remove: string[], now: Date): Promise<void> {
  if (remove.length) await db.delete(scimGroupMembers).where(and(eq(scimGroupMembers.groupId, groupId), inArray(scimGroupMembers.userId, remove)));
  if (add.length) await db.insert(scimGroupMembers).values(add.map((userId) => ({ groupId, userId, createdAt: now }))).onConflictDoNothing();
}

export async function deleteGroup(db: Database, groupId: string): Promise<void> {
  await db.delete(roleBindings).where(eq(roleBindings.viaGroupId, groupId));
  await db.delete(scimGroups).where(eq(scimGroups.id, groupId));
}

// ---------------------------------------------------------------- group → role mappings

export interface MappingInput {
  group_display_name: string;
  role_id: string;
  scope_type: string;
  scope_object_id: string;
}

export async function listGroupMappings(db: Database, integrationId: string): Promise<Array<MappingInput & { role_name: string }>> {
  const rows = await db
    .select({ m: scimGroupMappings, roleName: roles.roleName })
    .from(scimGroupMappings)
    .innerJoin(roles, eq(roles.id, scimGroupMappings.roleId))
    .where(eq(scimGroupMappings.integrationId, integrationId))
    .orderBy(asc(sql`lower(${scimGroupMappings.groupDisplayName})`), asc(roles.roleName), asc(scimGroupMappings.scopeType), asc(scimGroupMappings.scopeObjectId));
  return rows.map(({ m, roleName }) => ({
    group_display_name: m.groupDisplayName,
    role_id: m.roleId,
    role_name: roleName,
    scope_type: m.scopeType,
    scope_object_id: m.scopeObjectId,
  }));
}

/**
 * Holds the integration's row until the transaction ends: two replacements of its mappings at once run
 * one after the other (the second's delete would miss what the first inserted meanwhile, and the
 * mappings would end as the union of both lists), each reading the mappings the other left.
 */
export async function lockScimIntegration(db: Database, integrationId: string): Promise<void> {
  await db.select({ id: scimIntegrations.id }).from(scimIntegrations).where(eq(scimIntegrations.id, integrationId)).for("update");
}

export async function replaceGroupMappings(db: Database, orgId: string, integrationId: string, mappings: MappingInput[]): Promise<void> {
  await lockScimIntegration(db, integrationId);
  await db.delete(scimGroupMappings).where(eq(scimGroupMappings.integrationId, integrationId));
  if (mappings.length) {
    await db.insert(scimGroupMappings).values(
      mappings.map((m) => ({
        id: randomUUID(),
        organizationId: orgId,
        integrationId,
        groupDisplayName: m.group_display_name,
        roleId: m.role_id,
        scopeType: m.scope_type,
        scopeObjectId: m.scope_object_id,
      })),
    );
  }
}

export interface BindingChange {
  userId: string;
  groupId: string;
  roleId: string;
  scopeType: string;
  scopeObjectId: string;
}

const changeKey = (b: BindingChange) => `${b.userId}|${b.groupId}|${b.roleId}|${b.scopeType}|${b.scopeObjectId}`;

/**
 * The group-granted bindings that should exist for these groups (their members × the mappings
 * of their names) against those that do: what to create and what to delete. With `mappings`,
 * judged against those mappings instead of the stored ones (a preview).
 */
export async function groupBindingDiff(
  db: Database,
  integrationId: string,
  groupIds: string[] | "all",
  mappings?: MappingInput[],
): Promise<{ create: BindingChange[]; remove: Array<BindingChange & { id: string }> }> {
  const groups = await db
    .select({ id: scimGroups.id, name: scimGroups.displayName })
    .from(scimGroups)
    .where(and(eq(scimGroups.integrationId, integrationId), groupIds === "all" ? undefined : inArray(scimGroups.id, groupIds.length ? groupIds : [""])));
  const ids = groups.map((g) => g.id);
  const maps = mappings ?? (await listGroupMappings(db, integrationId));
  const byName = new Map<string, MappingInput[]>();
  for (const m of maps) {
    const key = m.group_display_name.toLowerCase();
    byName.set(key, [...(byName.get(key) ?? []), m]);
  }
  const members = await groupMemberIds(db, ids);
  const desired = new Map<string, BindingChange>();
  for (const g of groups) {
    for (const m of byName.get(g.name.toLowerCase()) ?? []) {
      for (const userId of members.get(g.id) ?? []) {
        const b = { userId, groupId: g.id, roleId: m.role_id, scopeType: m.scope_type, scopeObjectId: m.scope_object_id };
        desired.set(changeKey(b), b);
      }
    }
  }
  const existing = ids.length
    ? await db
        .select({ id: roleBindings.id, userId: roleBindings.userId, groupId: roleBindings.viaGroupId, roleId: roleBindings.roleId, scopeType: roleBindings.scopeType, scopeObjectId: roleBindings.scopeObjectId })
        .from(roleBindings)
        .where(inArray(roleBindings.viaGroupId, ids))
    : [];
  const have = new Set(existing.map(changeKey));
  return {
    create: [...desired.values()].filter((b) => !have.has(changeKey(b))),
    remove: existing.filter((b) => !desired.has(changeKey(b))),
  };
}

/** Brings the group-granted bindings of these groups in line with their members and the mappings (inside the caller's transaction). */
export async function syncGroupBindings(db: Database, orgId: string, integrationId: string, groupIds: string[] | "all"): Promise<{ created: number; removed: number }> {
  const diff = await groupBindingDiff(db, integrationId, groupIds);
  if (diff.remove.length) await db.delete(roleBindings).where(inArray(roleBindings.id, diff.remove.map((b) => b.id)));
  if (diff.create.length) {
    await db
      .insert(roleBindings)
      .values(
        diff.create.map((b) => ({
          id: randomUUID(),
          organizationId: orgId,
          userId: b.userId,
          roleId: b.roleId,
          scopeType: b.scopeType,
          scopeObjectId: b.scopeObjectId,
          viaGroupId: b.groupId,
        })),
      )
      .onConflictDoNothing();
  }
  return { created: diff.create.length, removed: diff.remove.length };
}

/** Groups of the integration this person is in. */
export async function groupsOfPerson(db: Database, orgId: string, userId: string): Promise<Array<{ id: string; displayName: string }>> {
  return db
    .select({ id: scimGroups.id, displayName: scimGroups.displayName })
    .from(scimGroupMembers)
    .innerJoin(scimGroups, eq(scimGroups.id, scimGroupMembers.groupId))
    .where(and(eq(scimGroupMembers.userId, userId), eq(scimGroups.organizationId, orgId)))
    .orderBy(asc(scimGroups.displayName));
}

// ---------------------------------------------------------------- the integration page

/** People this integration provisioned or matched, and its groups, with their counts: computed, never stored. */
export async function integrationCounts(db: Database, integrationIds: string[]): Promise<Map<string, { users: number; groups: number }>> {
  const out = new Map<string, { users: number; groups: number }>(integrationIds.map((id) => [id, { users: 0, groups: 0 }]));
  if (integrationIds.length === 0) return out;
  const people = await db
    .select({ id: memberships.scimIntegrationId, n: count() })
    .from(memberships)
    .where(inArray(memberships.scimIntegrationId, integrationIds))
    .groupBy(memberships.scimIntegrationId);
  for (const r of people) if (r.id) out.get(r.id)!.users = r.n;
  const groups = await db
    .select({ id: scimGroups.integrationId, n: count() })
    .from(scimGroups)
    .where(inArray(scimGroups.integrationId, integrationIds))
    .groupBy(scimGroups.integrationId);
  for (const r of groups) out.get(r.id)!.groups = r.n;
  return out;
}

export async function provisionedPeople(db: Database, orgId: string, integrationId: string, limit: number) {
  return db
    .select({
      id: memberships.userId,
      user_name: sql<string>`${userNameSql}`,
      email: users.email,
      display_name: sql<string>`coalesce(${memberships.scimAttributes}->>'displayName', ${users.name})`,
      status: memberships.status,
      updated_at: memberships.updatedAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, orgId), eq(memberships.scimIntegrationId, integrationId)))
    .orderBy(asc(memberships.createdAt), asc(memberships.userId))
    .limit(limit);
}

export async function provisionedGroups(db: Database, integrationId: string, limit: number) {
  return db
    .select({
      id: scimGroups.id,
      display_name: scimGroups.displayName,
      external_id: scimGroups.externalId,
      member_count: sql<number>`(select count(*)::int from scim_group_members gm where gm.group_id = ${scimGroups.id})`,
      updated_at: scimGroups.updatedAt,
    })
    .from(scimGroups)
    .where(eq(scimGroups.integrationId, integrationId))
    .orderBy(asc(scimGroups.displayName))
    .limit(limit);
}


/** Binding changes with the names a person reads: e-mail, group, role. */
export async function describeBindingChanges(db: Database, changes: BindingChange[]) {
  const userIds = [...new Set(changes.map((c) => c.userId))];
  const groupIds = [...new Set(changes.map((c) => c.groupId))];
  const roleIds = [...new Set(changes.map((c) => c.roleId))];
  const emails = new Map(
    (userIds.length ? await db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, userIds)) : []).map((r) => [r.id, r.email]),
  );
  const groupNames = new Map(
    (groupIds.length ? await db.select({ id: scimGroups.id, name: scimGroups.displayName }).from(scimGroups).where(inArray(scimGroups.id, groupIds)) : []).map((r) => [r.id, r.name]),
  );
  const roleNames = new Map((roleIds.length ? await db.select({ id: roles.id, name: roles.roleName }).from(roles).where(inArray(roles.id, roleIds)) : []).map((r) => [r.id, r.name]));
  return changes.map((c) => ({
    user_id: c.userId,
    email: emails.get(c.userId) ?? "",
    group_id: c.groupId,
    group_display_name: groupNames.get(c.groupId) ?? "",
    role_id: c.roleId,
    role_name: roleNames.get(c.roleId) ?? "",
    scope_type: c.scopeType,
    scope_object_id: c.scopeObjectId,
  }));
}

/**
 * Refreshes the planner's statistics of the tables provisioning grows. A first sync grows them
 * faster than a once-a-minute look catches: the server's autovacuum on PostgreSQL, and the store's
 * own pass on PGlite (lib/db/autovacuum.ts), each look every minute (autovacuum_naptime), and until
 * then the planner judges a 10,000-person organization by the handful of rows it had, and picks
 * scans over lookups.
 */
export async function refreshProvisioningStatistics(db: Database): Promise<void> {
  await db.execute(sql`analyze users, memberships, role_bindings, scim_groups, scim_group_members`);
}
