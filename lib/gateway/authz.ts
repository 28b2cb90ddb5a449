import { PERMISSION_NAMES } from "@/lib/contract/constants";
import type { ReadCache } from "@/lib/db/read-cache";
import type { Caller } from "./context";
import { forbidden } from "./errors";
import type { Database } from "./store/client";
import { grantsOf, holdAccount, holdActiveMembership, holdAuthority, holdersOf, relationsOf, type Grant, type Relation } from "./store/queries/access";

export type { Relation };

function onlyOrganization(all: Map<string, Relation>, orgId: string): Map<string, Relation> {
  const relation = all.get(orgId);
  return relation === undefined ? new Map() : new Map([[orgId, relation]]);
}

/**
 * Permission names. Roles (seeded data) grant them; a binding at org scope grants
 * them across the organization, at project scope on that project only.
 */
export const PERMISSIONS = PERMISSION_NAMES;
export type Permission = (typeof PERMISSIONS)[number];

/**
 * What one caller may do, loaded lazily, once per request, and kept in the
 * gateway's read cache until the store next changes.
 */
export class Access {
  private orgs?: Promise<Map<string, Relation>>;
  private grants = new Map<string, Promise<Grant[]>>();

  constructor(
    private readonly db: Database,
    private readonly reads: ReadCache,
    readonly caller: Caller,
  ) {}

  /** Organization id → the caller's relation to it; only the key's organization for a key that acts in one. */
  memberships(): Promise<Map<string, Relation>> {
    const { userId, organizationId: only } = this.caller;
    if (!this.orgs) {
      const all = this.reads.get(`memberships:${userId}`, () => relationsOf(this.db, userId));
      this.orgs = only === undefined ? all : all.then((relations) => onlyOrganization(relations, only));
    }
    return this.orgs;
  }

  async relation(orgId: string): Promise<Relation | null> {
    return (await this.memberships()).get(orgId) ?? null;
  }

  private grantsIn(orgId: string): Promise<Grant[]> {
    let found = this.grants.get(orgId);
    if (!found) {
      const userId = this.caller.userId;
      found = this.reads.get(`grants:${userId}:${orgId}`, () => grantsOf(this.db, userId, orgId));
      this.grants.set(orgId, found);
    }
    return found;
  }

  /**
   * Whether the caller holds a permission in the organization, or on one project of it.
   * Owners of the organization hold every permission, whatever their bindings; updating the organization is theirs
   * alone (the spec's rule), whatever a role grants.
   */
  async can(orgId: string, permission: Permission, projectId?: string): Promise<boolean> {
    const relation = await this.relation(orgId);
    if (!relation) return false;
    if (relation === "owner") return true;
    if (permission === "organization.update") return false;
    return (await this.grantsIn(orgId)).some(
      (g) =>
        g.permissions.includes(permission) &&
        (g.scopeType === "org" || (projectId !== undefined && g.scopeType === "project" && g.scopeObjectId === projectId)),
    );
  }

  /** Project ids of the organization the caller holds any binding on. */
  async boundProjects(orgId: string): Promise<Set<string>> {
    return new Set((await this.grantsIn(orgId)).filter((g) => g.scopeType === "project").map((g) => g.scopeObjectId));
  }

  /** The caller's relation to a project: owners of its organization own it, a binding on it makes a member. */
  async projectRelation(orgId: string, projectId: string): Promise<Relation | null> {
    const org = await this.relation(orgId);
    if (!org) return null;
    if (org === "owner") return "owner";
    if (await this.can(orgId, "projects.read")) return "member";
    return (await this.boundProjects(orgId)).has(projectId) ? "member" : null;
  }

  /** Every permission the caller holds in the organization, or on one project of it (org-wide ones included). */
  async permissions(orgId: string, projectId?: string): Promise<Permission[]> {
    const held = await Promise.all(PERMISSIONS.map((p) => this.can(orgId, p, projectId)));
    return PERMISSIONS.filter((_, i) => held[i]);
  }
}

// The spec's stated rules, each a 403 when violated.

export async function requireOrgMember(access: Access, orgId: string): Promise<Relation> {
  const relation = await access.relation(orgId);
  if (!relation) throw forbidden("the caller is not a member of this organization");
  return relation;
}

export async function requireOrgOwner(access: Access, orgId: string): Promise<void> {
  if ((await access.relation(orgId)) !== "owner") throw forbidden("only an owner of the organization may do this");
}

/**
 * What locks a person out, weakens their sign-in or changes their roles (removal, requiring or lifting
 * SSO, resetting their second factors, their role bindings) is done to an owner only by an owner:
 * holding iam.write or mfa.manage, as an Organization Admin does, does not reach past the holder's own
 * relation. `targetRelation` is the person's relation to the organization, if any.
 */
export async function requireOwnerForOwner(
  access: Access,
  orgId: string,
  targetRelation: string | undefined,
  change: string,
  where = "only an owner of the organization",
): Promise<void> {
  if (targetRelation === "owner" && (await access.relation(orgId)) !== "owner") {
    throw forbidden(`${where} may ${change} an owner`);
  }
}

export async function requirePermission(access: Access, orgId: string, permission: Permission, projectId?: string): Promise<void> {
  await requireOrgMember(access, orgId);
  if (!(await access.can(orgId, permission, projectId))) {
    throw forbidden(`the caller lacks the permission ${permission}`);
  }
}

/**
 * Inside the transaction of a change an admin makes to people (an invitation, a removal, SSO required or lifted,
 * factors reset, role bindings), first: the caller's authority checked again as it stands now, what grants it held
 * until the change commits, with the target's membership (`holdAuthority`, which takes the rows in one order). The
 * checks before the transaction read it through the cache: an admin removed, suspended, demoted or stripped of the
 * permission in between would otherwise make the change, audited in their name. An owner is changed by an owner only,
 * as the target's relation stands now. Returns the target's relation there (null: not a person of it).
 */
export async function holdAdminAuthority(
  tx: Database,
  orgId: string,
  callerId: string,
  permission: Permission,
  target?: { userId: string; change: string },
): Promise<Relation | null> {
  const held = await holdAuthority(tx, orgId, callerId, permission, target?.userId);
  if (!held.caller) throw forbidden(`the caller lacks the permission ${permission}`);
  if (target && held.target === "owner" && held.caller !== "owner") throw forbidden(`only an owner of the organization may ${target.change} an owner`);
  return held.target;
}

/**
 * Inside the transaction that makes something act for the caller in the organization (a SCIM token, an
 * S3 key): their active membership, held until it commits, and the permission it needs, read from the
 * store with their account held. The checks above read both before; a removal, suspension or role change
 * that commits in between would otherwise miss what this makes (it looked for the person's credentials
 * before they existed) and leave it working. Now one that began first has ended it (403), and one that
 * begins later waits and ends what this made. Taken in the order the others take them: the membership,
 * then the account.
 */
export async function holdCallerMembership(tx: Database, orgId: string, userId: string, permission?: Permission): Promise<void> {
  if (!(await holdActiveMembership(tx, orgId, userId))) throw forbidden("the caller is not a member of this organization");
  if (!permission) return;
  // Read again as it stands now (the check above read it through the cache), with the account held: a role change
  // that takes the permission away either ended before this reads it, or waits and then ends what this made.
  await holdAccount(tx, userId);
  if (!(await holdersOf(tx, orgId, [userId], permission)).has(userId)) throw forbidden(`the caller lacks the permission ${permission}`);
}

export async function requireProjectMember(access: Access, orgId: string, projectId: string): Promise<Relation> {
  await requireOrgMember(access, orgId);
  const relation = await access.projectRelation(orgId, projectId);
  if (!relation) throw forbidden("the caller is not a member of this project");
  return relation;
}
