import { and, eq, inArray, isNull, ne, or, sql, type SQL } from "drizzle-orm";
import { unionAll } from "drizzle-orm/pg-core";
import { parse as parseScimFilter, type AttrExp, type Filter } from "scim2-parse-filter";
import { timestampSchema } from "@/lib/contract/time";
import type { Database } from "../client";
import { memberships, scimGroups, users } from "../schema";

/**
 * SCIM filters (RFC 7644 §3.4.2.2), parsed by scim2-parse-filter and turned into SQL over indexed
 * columns: userName and externalId per organization, the account's e-mail, group names per
 * integration. The lookups an identity provider makes before each create (`userName eq`,
 * `emails.value eq`) are resolved to ids first, so their query is a primary-key lookup.
 */

export class ScimFilterError extends Error {}

/** The userName a person answers to: as the provider set it, else the account's e-mail. */
export const userNameSql = sql`coalesce(${memberships.scimUserName}, ${users.email})`;

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
export type Lookups = Map<string, string[]>;
const LOOKUPS: Record<string, (db: Database, orgId: string, value: string) => Promise<string[]>> = {
  username: userIdsByUserName,
  "emails.value": userIdsByEmail,
};
const lookupKey = (attr: string, value: string) => `${attr} ${value}`;

/** Resolves a filter's `userName eq` and `emails.value eq` terms to ids before the query, so the query is a primary-key lookup. */
export async function resolveLookups(db: Database, orgId: string, f: Filter, out: Lookups): Promise<void> {
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

export function parseFilter(text: string): Filter {
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

export function userCondition(orgId: string, f: Filter, names: Lookups = new Map()): SQL {
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

export function groupCondition(f: Filter): SQL {
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
