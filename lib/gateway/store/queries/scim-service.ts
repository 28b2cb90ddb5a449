import { randomUUID } from "node:crypto";
import { and, asc, count, eq, inArray, ne, sql, type SQL } from "drizzle-orm";
import { resultRows, type Database } from "../client";
import { accountDeciders, decidesAlone, lockAccounts } from "./access";
import { endOrganizationCredentials, endScimTokensOfThoseWithout } from "./api-keys";
import { inList, insertParts } from "./long-lists";
import { groupCondition, parseFilter, resolveLookups, userCondition, userIdsByUserName, userNameSql, type Lookups } from "./scim-filters";
import { memberships, roleBindings, scimGroupMembers, scimGroups, scimIntegrations, scimTokens, users } from "../schema";

/**
 * The SCIM 2.0 service's reads and writes: its tokens, people and groups. Filters become SQL in
 * scim-filters.ts, what groups grant in scim-group-bindings.ts; nothing above these files sees SQL.
 */

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


/**
 * Takes the transaction's advisory lock on a name people of the organization answer SCIM to (a
 * userName, or the e-mail of a person without one), before checking that no one else has it: the
 * provisioning function takes the same lock (migration 0014), so two requests giving one name to
 * two people run one after the other, and the second finds the first's person.
 */
export async function lockUserName(tx: Database, orgId: string, name: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('stratus.scim_user_name:' || ${orgId}::text || ':' || lower(${name}::text), 0))`);
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
    .where(and(eq(memberships.organizationId, orgId), inList(memberships.userId, ids)))
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
  /** A refused change's result (a gRPC code name, as the gateway's own entries) and message; "OK" and none by default. */
  result?: string;
  errorMessage?: string;
}

const textArray = (values: string[]) => (values.length ? sql`array[${sql.join(values.map((v) => sql`${v}`), sql`, `)}]::text[]` : sql`array[]::text[]`);

/** An audit entry of a SCIM change (actor type and surface SCIM), filed under the organization as it is named now: one statement. */
export async function insertScimAuditEntry(db: Database, e: ScimAuditEntry): Promise<void> {
  await db.execute(sql`
    insert into audit_log (id, organization_id, organization_name, project_id, project_name, action, action_detail, actor_id, actor_email, actor_type,
                           client_ip, start_time, end_time, result, error_message, surface, locations, target_ids, target_names, target_type)
    select ${randomUUID()}, o.id, o.name, null, null, ${e.action}, ${e.actionDetail}, ${e.actorId}, ${e.actorName}, 'SCIM',
           ${e.clientIp}, ${e.startTime.toISOString()}, ${new Date().toISOString()}, ${e.result ?? "OK"}, ${e.errorMessage ?? ""}, 'SCIM', array[]::text[],
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
  | { outcome: "alreadyMember" }
  /** The integration was deleted since its token was checked (migration 0030). */
  | { outcome: "integrationGone" };

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
  if (row?.outcome === "integrationGone") return { outcome: "integrationGone" };
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
  input: { orgId: string; userId: string; integrationId: string; now: Date; accountName?: string; suspending: boolean } & PersonFields,
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
  // Once, as the person goes from active to suspended: a write to the tokens' table, even one deleting
  // nothing, empties every replica's cache of SCIM tokens. The account first, as a change that ends tokens
  // with a permission takes it (the account, then the tokens): the other way round the two waited for each other.
  if (input.suspending) {
    await lockAccounts(db, [input.userId]);
    await endOrganizationCredentials(db, input.orgId, input.userId);
  }
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
    .where(and(eq(memberships.organizationId, orgId), inList(memberships.userId, userIds)));
  return new Map(rows.map((r) => [r.userId, r.display]));
}

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
    .where(and(eq(memberships.organizationId, orgId), inList(memberships.userId, userIds)))
    .orderBy(asc(memberships.userId));
  const rows = lock ? await query.for(lock, { of: memberships }) : await query;
  return new Set(rows.map((r) => r.userId));
}

// ---------------------------------------------------------------- groups

export type GroupRow = typeof scimGroups.$inferSelect;


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

/**
 * The groups' member ids, in the order a read gives them (added, then id). With `among`, only those of these
 * users (the members a change names: what it costs does not grow with the group).
 */
export async function groupMemberIds(db: Database, groupIds: string[], among?: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0 || among?.length === 0) return out;
  const rows = await db
    .select({ groupId: scimGroupMembers.groupId, userId: scimGroupMembers.userId })
    .from(scimGroupMembers)
    .where(and(inArray(scimGroupMembers.groupId, groupIds), among ? inList(scimGroupMembers.userId, among) : undefined))
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
  if (remove.length) await db.delete(scimGroupMembers).where(and(eq(scimGroupMembers.groupId, groupId), inList(scimGroupMembers.userId, remove)));
  for (const part of insertParts(add, 3)) await db.insert(scimGroupMembers).values(part.map((userId) => ({ groupId, userId, createdAt: now }))).onConflictDoNothing();
}

/**
 * Deletes the role bindings these groups granted. `role_bindings.via_group_id` has no foreign key
 * (a binding of no group holds ""), so nothing removes them by cascade: whatever deletes a group
 * deletes its bindings here, or they would stay in force with no group to take them away.
 */
export async function deleteGroupGrantedBindings(db: Database, groupIds: string[]): Promise<void> {
  if (groupIds.length === 0) return;
  const gone = await db
    .delete(roleBindings)
    .where(inArray(roleBindings.viaGroupId, groupIds))
    .returning({ organizationId: roleBindings.organizationId, userId: roleBindings.userId, roleId: roleBindings.roleId });
  // Their people may have lost scim.manage with them, and their SCIM tokens with it (a group is one organization's).
  for (const orgId of new Set(gone.map((g) => g.organizationId))) await endScimTokensOfThoseWithout(db, orgId, gone.filter((g) => g.organizationId === orgId));
}

export async function deleteGroup(db: Database, groupId: string): Promise<void> {
  // The group's row before its bindings, in the order a change of its members and an integration's deletion take them.
  await db.delete(scimGroups).where(eq(scimGroups.id, groupId));
  await deleteGroupGrantedBindings(db, [groupId]);
}

/**
 * Groups of the integration this person is in. Only that integration's: each identity provider sees the
 * organization's people, but the groups another one pushed (their ids and names) are none of its business.
 */
export async function groupsOfPerson(db: Database, integrationId: string, userId: string): Promise<Array<{ id: string; displayName: string }>> {
  return db
    .select({ id: scimGroups.id, displayName: scimGroups.displayName })
    .from(scimGroupMembers)
    .innerJoin(scimGroups, eq(scimGroups.id, scimGroupMembers.groupId))
    .where(and(eq(scimGroupMembers.userId, userId), eq(scimGroups.integrationId, integrationId)))
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
