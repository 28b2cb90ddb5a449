import { and, asc, eq, exists, or, sql } from "drizzle-orm";
import type { Database } from "../client";
import { inList } from "./long-lists";
import { memberships, roleBindings, roles, users } from "../schema";

export type Relation = "owner" | "member";

/** What one role binding grants: its role's permissions, at org scope or on one project. */
export interface Grant {
  permissions: string[];
  scopeType: string;
  scopeObjectId: string;
}

/** Organization id → the user's relation to it; a suspended membership (SCIM `active: false`) reaches nothing. */
export async function relationsOf(db: Database, userId: string): Promise<Map<string, Relation>> {
  const rows = await db
    .select({ organizationId: memberships.organizationId, relation: memberships.relation })
    .from(memberships)
    .where(and(eq(memberships.userId, userId), eq(memberships.status, "active")));
  return new Map(rows.map((r) => [r.organizationId, r.relation as Relation]));
}

/**
 * Whether the person is an active member of the organization, their membership row held (FOR SHARE)
 * until the caller's transaction ends: a removal or suspension, which changes that row, waits for it.
 */
export async function holdActiveMembership(tx: Database, orgId: string, userId: string): Promise<boolean> {
  const held = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.organizationId, orgId), eq(memberships.userId, userId), eq(memberships.status, "active")))
    .for("share");
  return held.length > 0;
}

/**
 * The person's relation to the organization while their membership is active, the row held (FOR SHARE) until the
 * caller's transaction ends; null when they are no active member. A removal, suspension or demotion waits for it.
 */
export async function holdActiveRelation(tx: Database, orgId: string, userId: string): Promise<Relation | null> {
  const [held] = await tx
    .select({ relation: memberships.relation })
    .from(memberships)
    .where(and(eq(memberships.organizationId, orgId), eq(memberships.userId, userId), eq(memberships.status, "active")))
    .for("share");
  return (held?.relation as Relation | undefined) ?? null;
}

/**
 * For a change an admin makes to people: the membership rows it reads and writes, held (FOR UPDATE) until the
 * transaction ends, all in one statement in user-id order: the caller's and the target's, and every owner's when either
 * is one (the paths that keep an owner, `lockOwners`, take those first, in the same order). So taken, two such changes,
 * or one and an owner's removal or a SCIM change of an owner, wait for each other, never each holding what the other
 * waits for. Then the caller's relation while they hold `permission` (owners hold every one; for a member, the
 * organization-wide bindings and roles that carry it are held FOR SHARE, so a binding's deletion or a role's change
 * waits too), null when they hold it no more; and the target's relation, null when not a person there.
 */
export async function holdAuthority(
  tx: Database,
  orgId: string,
  callerId: string,
  permission: string,
  targetId?: string,
): Promise<{ caller: Relation | null; target: Relation | null }> {
  const ids = targetId !== undefined && targetId !== callerId ? [callerId, targetId] : [callerId];
  const inOrg = eq(memberships.organizationId, orgId);
  const known = await tx.select({ relation: memberships.relation }).from(memberships).where(and(inOrg, inList(memberships.userId, ids)));
  const withOwners = known.some((m) => m.relation === "owner");
  const held = await tx
    .select({ userId: memberships.userId, relation: memberships.relation, status: memberships.status })
    .from(memberships)
    .where(and(inOrg, withOwners ? or(inList(memberships.userId, ids), eq(memberships.relation, "owner")) : inList(memberships.userId, ids)))
    .orderBy(asc(memberships.userId))
    .for("update");
  const relationOf = (id: string | undefined) => {
    const row = held.find((m) => m.userId === id);
    return row && row.status === "active" ? (row.relation as Relation) : null;
  };
  const target = targetId === undefined ? null : relationOf(targetId);
  const relation = relationOf(callerId);
  if (relation !== "member") return { caller: relation, target };
  const grants = await tx
    .select({ id: roleBindings.id })
    .from(roleBindings)
    .innerJoin(roles, eq(roles.id, roleBindings.roleId))
    .where(
      and(
        eq(roleBindings.organizationId, orgId),
        eq(roleBindings.userId, callerId),
        eq(roleBindings.scopeType, "org"),
        sql`${permission} = any(${roles.permissions})`,
      ),
    )
    .orderBy(asc(roleBindings.id))
    .for("share", { of: [roleBindings, roles] });
  return { caller: grants.length > 0 ? relation : null, target };
}

/**
 * Holds the account's row (FOR SHARE) until the caller's transaction ends, against a change that takes a
 * permission away from it meanwhile: that change takes the row before it looks for what the permission
 * made (`endScimTokensOfThoseWithout`), so one that began first is waited for and then read, and one that
 * begins later waits, and then finds what this transaction made.
 */
export async function holdAccount(tx: Database, userId: string): Promise<void> {
  await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("share");
}

/**
 * Locks these accounts' rows (FOR NO KEY UPDATE, in one order) until the caller's transaction ends: what a
 * change that ends credentials with a permission or a membership takes before it looks for them. Foreign
 * keys' checks (FOR KEY SHARE) go on; a token being made (`holdAccount`) is waited for, or waits.
 */
export async function lockAccounts(tx: Database, userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  await tx.select({ id: users.id }).from(users).where(inList(users.id, userIds)).orderBy(asc(users.id)).for("no key update");
}

/**
 * Who decides what belongs to an account (its second factors, whether its key opens a console
 * session, its own name), among the organizations it belongs to (suspended memberships included):
 * its home (`users.home_organization_id`, the first organization that had it) alone while the
 * account is a person there, otherwise every one of them. So an organization that adds an existing
 * account can neither change those for the home nor block the home from changing them, and none
 * decides alone for the others once the home has let the person go.
 */
export async function accountDeciders(db: Database, userId: string): Promise<{ organizations: string[]; deciders: string[]; home: string | null }> {
  const rows = await db
    .select({ organizationId: memberships.organizationId, home: users.homeOrganizationId })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.organizationId));
  const organizations = rows.map((r) => r.organizationId);
  const home = rows[0]?.home;
  return home && organizations.includes(home) ? { organizations, deciders: [home], home } : { organizations, deciders: organizations, home: null };
}

/** Whether this organization decides alone for the account (its home, or the only organization it belongs to). */
export function decidesAlone(account: { deciders: string[] }, orgId: string): boolean {
  return account.deciders.length === 1 && account.deciders[0] === orgId;
}

/**
 * Of these people, those who hold the permission across the organization now (as Access.can reads it without a
 * project): its active owners, and its active people a role bound at organization scope grants it to.
 */
export async function holdersOf(db: Database, orgId: string, userIds: string[], permission: string): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const granted = db
    .select({ one: sql`1` })
    .from(roleBindings)
    .innerJoin(roles, eq(roles.id, roleBindings.roleId))
    .where(
      and(
        eq(roleBindings.organizationId, orgId),
        eq(roleBindings.userId, memberships.userId),
        eq(roleBindings.scopeType, "org"),
        sql`${permission} = any(${roles.permissions})`,
      ),
    );
  const rows = await db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(
      and(
        eq(memberships.organizationId, orgId),
        inList(memberships.userId, userIds),
        eq(memberships.status, "active"),
        or(eq(memberships.relation, "owner"), exists(granted)),
      ),
    );
  return new Set(rows.map((r) => r.userId));
}

/** The user's role bindings in one organization, with their roles' permissions. */
export async function grantsOf(db: Database, userId: string, orgId: string): Promise<Grant[]> {
  return db
    .select({ permissions: roles.permissions, scopeType: roleBindings.scopeType, scopeObjectId: roleBindings.scopeObjectId })
    .from(roleBindings)
    .innerJoin(roles, eq(roles.id, roleBindings.roleId))
    .where(and(eq(roleBindings.userId, userId), eq(roleBindings.organizationId, orgId)));
}

/**
 * When a suspension (SCIM `active: false`) last reached everything a console session of the person
 * acts in, if one does: with `organizationId` (a session an SSO provider of that organization signed
 * in, its key scoped to it), a suspension there; without (a key session), the latest suspension once
 * no organization has the person active. So one organization suspending a person ends no session
 * that acts in another where they are still active.
 */
export async function latestSuspension(db: Database, userId: string, organizationId?: string): Promise<number | null> {
  const rows = await db
    .select({ status: memberships.status, at: memberships.updatedAt })
    .from(memberships)
    .where(organizationId ? and(eq(memberships.userId, userId), eq(memberships.organizationId, organizationId)) : eq(memberships.userId, userId));
  if (rows.length === 0 || rows.some((r) => r.status !== "suspended")) return null;
  return Math.max(...rows.map((r) => new Date(r.at).getTime()));
}
