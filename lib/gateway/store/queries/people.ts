import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, gt, ilike, inArray, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { Person } from "@/lib/contract/people";
import { emailDomainOf } from "@/lib/contract/sign-in";
import type { Database } from "../client";
import { endOrganizationCredentials } from "./api-keys";
import { isPublicEmailDomain } from "../../public-email-domains";
import { forgetSsoIdentities } from "./sso";
import { accountDeciders, decidesAlone } from "./access";
import { userIdsByUserName } from "./scim-filters";
import { lockUserName } from "./scim-service";
import { memberships, roleBindings, roles, scimGroupMembers, scimGroups, ssoProviders, userMfaFactors, users } from "../schema";

/** The role every person of an organization holds there from the day they join. */
export const BASELINE_ROLE = "Organization Member";

export interface PeopleFilter {
  status?: "active" | "suspended";
  /** Name or e-mail contains this, case-insensitively. */
  q?: string;
  /** Only these people. */
  userIds?: string[];
}

/** A page's edge: people are listed by e-mail (unique), so the e-mail alone is a position. */
export type PeoplePosition = string;

/** LIKE's wildcards taken literally. */
const literal = (text: string) => text.replace(/[\\%_]/g, (m) => `\\${m}`);

function conditions(orgId: string, f: PeopleFilter): SQL[] {
  const where: SQL[] = [eq(memberships.organizationId, orgId)];
  if (f.status) where.push(eq(memberships.status, f.status));
  if (f.q) {
    const pattern = `%${literal(f.q)}%`;
    where.push(or(ilike(users.email, pattern), ilike(users.name, pattern))!);
  }
  if (f.userIds && f.userIds.length > 0) where.push(inArray(memberships.userId, f.userIds));
  return where;
}

const columns = {
  id: users.id,
  email: users.email,
  name: users.name,
  status: memberships.status,
  source: memberships.source,
  relation: memberships.relation,
  createdAt: memberships.createdAt,
  lastActiveAt: memberships.lastActiveAt,
  ssoRequired: memberships.ssoRequired,
  /** The methods of the person's confirmed second factors (user_mfa_factors_user_idx). */
  mfaMethods: sql<string[]>`array(select distinct f.method from ${userMfaFactors} f where f.user_id = users.id and f.confirmed_at is not null order by 1)`,
};

type Row = {
  id: string;
  email: string;
  name: string;
  status: string;
  source: string;
  relation: string;
  createdAt: Date;
  lastActiveAt: Date | null;
  ssoRequired: boolean;
  mfaMethods: string[];
};

export function toPerson(r: Row, showActivity = true): Person {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    status: r.status as Person["status"],
    source: r.source as Person["source"],
    relation: r.relation as Person["relation"],
    created_at: r.createdAt.toISOString(),
    last_active_at: showActivity && r.lastActiveAt ? r.lastActiveAt.toISOString() : "",
    sso_required: r.ssoRequired,
    mfa_methods: r.mfaMethods as Person["mfa_methods"],
  };
}

/** Whether this person must sign in through SSO; false for someone not of the organization. */
export async function setSsoRequired(tx: Database, orgId: string, userId: string, required: boolean): Promise<boolean> {
  const rows = await tx
    .update(memberships)
    .set({ ssoRequired: required, updatedAt: new Date() })
    .where(and(eq(memberships.organizationId, orgId), eq(memberships.userId, userId)))
    .returning({ userId: memberships.userId });
  return rows.length > 0;
}

/**
 * Whether an organization of this account requires it to sign in through SSO (the console's key
 * sign-in asks) and can: it has a provider for the account's e-mail domain that signs this person in
 * (one an owner added, for an owner). A requirement no provider can meet does not lock the person
 * out, whoever deleted or replaced the provider, nor does a provider's claim to a public e-mail service's
 * domain, which signs nobody in. (A provider still without its client secret counts: finishing its set-up
 * is the way in.) Nor does an organization where the person is suspended (its SSO signs them in no more), or
 * one whose domain another organization's provider claims too (sign-in refuses a domain two organizations
 * claim, a claim from before that was refused).
 */
export async function ssoRequiredAnywhere(db: Database, userId: string): Promise<boolean> {
  const domain = sql`split_part(lower(${users.email}), '@', 2)`;
  const [row] = await db
    .select({ email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .innerJoin(
      ssoProviders,
      and(
        eq(ssoProviders.organizationId, memberships.organizationId),
        sql`${domain} = any(${ssoProviders.emailDomains})`,
        or(sql`${memberships.relation} <> 'owner'`, eq(ssoProviders.signsInOwners, true)),
      ),
    )
    .where(
      and(
        eq(memberships.userId, userId),
        eq(memberships.ssoRequired, true),
        eq(memberships.status, "active"),
        sql`not exists (select 1 from ${ssoProviders} other where ${domain} = any(other.email_domains) and other.organization_id <> ${memberships.organizationId})`,
      ),
    )
    .limit(1);
  return row !== undefined && !isPublicEmailDomain(emailDomainOf(row.email));
}

/**
 * A position is a person's e-mail, or one with a NUL after it: just past that person (a page that came
 * back empty goes back through the person its token named). No e-mail holds a NUL, and PostgreSQL takes
 * none in text, so that one is compared as "up to and including" the e-mail.
 */
function bound(toward: "after" | "before", from: PeoplePosition) {
  const through = from.endsWith("\u0000");
  const email = through ? from.slice(0, -1) : from;
  return toward === "after" ? gt(users.email, email) : through ? lte(users.email, email) : lt(users.email, email);
}

async function read(db: Database, orgId: string, f: PeopleFilter, limit: number, toward: "after" | "before", from?: PeoplePosition): Promise<Row[]> {
  const where = conditions(orgId, f);
  if (from !== undefined) where.push(bound(toward, from));
  return db
    .select(columns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(...where))
    .orderBy(toward === "after" ? asc(users.email) : desc(users.email))
    .limit(limit);
}

async function exists(db: Database, orgId: string, f: PeopleFilter, toward: "after" | "before", from: PeoplePosition): Promise<boolean> {
  return (await read(db, orgId, f, 1, toward, from)).length > 0;
}

/**
 * One page of the organization's people by e-mail, keyset-paged like the audit log: `after`
 * continues past a page's last person, `before` goes back before a page's first.
 */
export async function peoplePage(
  db: Database,
  orgId: string,
  f: PeopleFilter,
  page: { limit: number; after?: PeoplePosition; before?: PeoplePosition },
): Promise<{ items: Row[]; next: PeoplePosition | null; prev: PeoplePosition | null }> {
  let rows: Row[];
  let hasNext: boolean;
  let hasPrev: boolean;
  if (page.before !== undefined) {
    const found = await read(db, orgId, f, page.limit + 1, "before", page.before);
    hasPrev = found.length > page.limit;
    rows = found.slice(0, page.limit).reverse();
    // Fewer than a page before: the first page, whole.
    if (!hasPrev && rows.length < page.limit) return peoplePage(db, orgId, f, { limit: page.limit });
    const last = rows.at(-1);
    hasNext = await exists(db, orgId, f, "after", last ? last.email : page.before);
  } else {
    const found = await read(db, orgId, f, page.limit + 1, "after", page.after);
    hasNext = found.length > page.limit;
    rows = found.slice(0, page.limit);
    const first = rows[0];
    hasPrev = page.after !== undefined && (await exists(db, orgId, f, "before", first ? first.email : `${page.after}\u0000`));
  }
  return { items: rows, next: hasNext ? (rows.at(-1)?.email ?? null) : null, prev: hasPrev ? (rows[0]?.email ?? (page.after !== undefined ? `${page.after}\u0000` : null)) : null };
}

/**
 * The person, if a member. `share` holds their membership until the transaction ends: a removal
 * waits for it, and one that came first is seen as done (the person is then no member).
 */
export async function findPerson(db: Database, orgId: string, userId: string, lock?: "share"): Promise<Row | undefined> {
  const query = db
    .select(columns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, orgId), eq(memberships.userId, userId)));
  const [row] = lock ? await query.for(lock, { of: memberships }) : await query;
  return row;
}

export async function findUserByEmail(db: Database, email: string): Promise<{ id: string; email: string; name: string } | undefined> {
  const [row] = await db.select({ id: users.id, email: users.email, name: users.name }).from(users).where(eq(users.email, email.toLowerCase()));
  return row;
}

export async function orgRolesByIds(db: Database, orgId: string, ids: string[]) {
  if (ids.length === 0) return new Map<string, typeof roles.$inferSelect>();
  const rows = await db
    .select()
    .from(roles)
    .where(and(eq(roles.organizationId, orgId), inArray(roles.id, ids)));
  return new Map(rows.map((r) => [r.id, r]));
}

export async function roleIdByName(db: Database, orgId: string, name: string): Promise<string | undefined> {
  const [row] = await db
    .select({ id: roles.id })
    .from(roles)
    .where(and(eq(roles.organizationId, orgId), eq(roles.roleName, name)));
  return row?.id;
}

/**
 * Thrown by invitePerson: the address is the SCIM userName of another person of the organization.
 * A person without a SCIM userName answers SCIM with their account's e-mail, and a userName names
 * one person (RFC 7643 §4.1.1): an identity provider's lookup by it must not find two.
 */
export class UserNameTaken extends Error {
  constructor(readonly email: string) {
    super(`${email} is the SCIM userName of another person of this organization`);
  }
}

/**
 * Invites a person: the account (made if new; a name given fills an empty one where this
 * organization decides for the account), the membership (source "invite", or "sso" for a person a
 * first SSO sign-in brings) and org-scope bindings of the given roles, in the caller's transaction.
 * Answers null when the account is already a person of this organization; throws UserNameTaken
 * when its e-mail is another person's SCIM userName there.
 */
export async function invitePerson(
  tx: Database,
  input: { organizationId: string; email: string; name?: string; roleIds: string[]; source?: "invite" | "sso" },
): Promise<Row | null> {
  const email = input.email.toLowerCase();
  await lockUserName(tx, input.organizationId, email);
  let user = await findUserByEmail(tx, email);
  if (!user) {
    const [made] = await tx
      .insert(users)
      // Made with its home: this organization is the first to have it (the membership's trigger would otherwise write the row again).
      .values({ id: randomUUID(), email, name: input.name ?? "", homeOrganizationId: input.organizationId })
      .onConflictDoNothing()
      .returning({ id: users.id, email: users.email, name: users.name });
    // None made: a concurrent invitation or first sign-in of the same address committed it first
    // (the insert waited for it); read committed, the next statement sees that account.
    user = made ?? (await findUserByEmail(tx, email));
    if (!user) throw new Error("the account was neither made nor found");
  }
  const joined = await tx
    .insert(memberships)
    .values({ organizationId: input.organizationId, userId: user.id, relation: "member", source: input.source ?? "invite" })
    .onConflictDoNothing()
    .returning({ userId: memberships.userId });
  if (joined.length === 0) return null;
  // Once joined, the account answers to its e-mail as a userName: no one else may answer to it.
  if ((await userIdsByUserName(tx, input.organizationId, email)).some((id) => id !== user.id)) throw new UserNameTaken(email);
  // A name given fills an empty one only where this organization decides for the account (its home,
  // or now the only organization it belongs to): one that adds an existing account later does not
  // name it in the others' people lists.
  if (input.name && user.name === "" && decidesAlone(await accountDeciders(tx, user.id), input.organizationId)) {
    await tx.update(users).set({ name: input.name }).where(and(eq(users.id, user.id), eq(users.name, "")));
  }
  const roleIds = [...new Set(input.roleIds)];
  if (roleIds.length > 0) {
    await tx.insert(roleBindings).values(
      roleIds.map((roleId) => ({
        id: randomUUID(),
        organizationId: input.organizationId,
        userId: user.id,
        roleId,
        scopeType: "org",
        scopeObjectId: input.organizationId,
      })),
    );
  }
  return (await findPerson(tx, input.organizationId, user.id)) ?? null;
}

/**
 * The organization's owners and their status, their rows locked for the caller's transaction. Every
 * change that must keep an active owner locks all of them, in one order, before it checks: two such
 * changes at once (two owners removing or suspending each other) then wait for each other, and the
 * second sees the first's result, instead of both passing the check or deadlocking.
 */
export async function lockOwners(tx: Database, orgId: string): Promise<Array<{ userId: string; active: boolean }>> {
  const rows = await tx
    .select({ userId: memberships.userId, status: memberships.status })
    .from(memberships)
    .where(and(eq(memberships.organizationId, orgId), eq(memberships.relation, "owner")))
    .orderBy(asc(memberships.userId))
    .for("update");
  return rows.map((r) => ({ userId: r.userId, active: r.status === "active" }));
}

/** Whether an active owner other than this user is left (the owners' rows locked, see lockOwners). */
export async function otherActiveOwner(tx: Database, orgId: string, userId: string): Promise<boolean> {
  return (await lockOwners(tx, orgId)).some((o) => o.userId !== userId && o.active);
}

/**
 * Removes a person from the organization: the role bindings they hold there, their SCIM group
 * memberships there (a group's next sync would bind them again), what acts there on their behalf
 * (endOrganizationCredentials) and the providers' links to them; the account stays. The REST removal and SCIM's DELETE both.
 */
export async function removePerson(tx: Database, orgId: string, userId: string): Promise<boolean> {
  // The membership first: a change holding it (a sign-in linking the person, a group changing its
  // members) ends before this goes on, and one after it finds no person.
  const gone = await tx
    .delete(memberships)
    .where(and(eq(memberships.organizationId, orgId), eq(memberships.userId, userId)))
    .returning({ userId: memberships.userId });
  // Then group memberships, bindings and tokens, in the order an integration's deletion takes them.
  const groups = tx.select({ id: scimGroups.id }).from(scimGroups).where(eq(scimGroups.organizationId, orgId));
  await tx.delete(scimGroupMembers).where(and(eq(scimGroupMembers.userId, userId), inArray(scimGroupMembers.groupId, groups)));
  await tx.delete(roleBindings).where(and(eq(roleBindings.organizationId, orgId), eq(roleBindings.userId, userId)));
  await endOrganizationCredentials(tx, orgId, userId);
  await forgetSsoIdentities(tx, orgId, userId);
  return gone.length > 0;
}

/**
 * Marks the user's memberships active now, where the mark is older than `staleBefore`
 * (or absent): at most one write a minute per membership, however busy the caller. Only the
 * memberships the call could act in: active ones (a suspended person's refused calls are no
 * activity there), and only `organizationId`'s for a key that acts in that one alone (an SSO session's).
 */
export async function touchLastActive(db: Database, userId: string, organizationId: string | undefined, now: Date, staleBefore: Date): Promise<void> {
  await db
    .update(memberships)
    .set({ lastActiveAt: now })
    .where(
      and(
        eq(memberships.userId, userId),
        eq(memberships.status, "active"),
        organizationId ? eq(memberships.organizationId, organizationId) : undefined,
        or(isNull(memberships.lastActiveAt), lt(memberships.lastActiveAt, staleBefore)),
      ),
    );
}
