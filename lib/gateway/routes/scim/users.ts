import type { Database } from "../../store/client";
import {
  findPerson,
  findPersonByUserName,
  groupsOfPerson,
  listPeople,
  lockUserName,
  provisionPerson,
  updatePerson,
  type PersonRow,
  type ScimTokenAuth,
} from "../../store/queries/scim-service";
import { lockOwners, removePerson } from "../../store/queries/people";
import { parseUser, parseUserChange, ScimError, spelledResource, userResource, withReadablePrimaries, type UserChange } from "./resources";
import { attributeList, project } from "./projection";
import { applyPatch, patchOperations } from "./patch";
import { auditActor, baseUrl, change, counted, listResponse, paging, readBody, scimJson, tokenRefused, UUID, type ScimContext } from "./frame";

/** SCIM Users: the organization's people. */

const userNotFound = (id: string) => new ScimError(404, `User ${id.slice(0, 64)} not found`);

async function existingPerson(db: Database, orgId: string, id: string): Promise<PersonRow> {
  const row = UUID.test(id) ? await findPerson(db, orgId, id) : undefined;
  if (!row) throw userNotFound(id);
  return row;
}

export async function createUser(c: ScimContext): Promise<Response> {
  const input = parseUser(await readBody(c));
  const scim = c.get("scim");
  const now = new Date();
  const provisioned = await provisionPerson(
    c.get("deps").db,
    {
      orgId: scim.organizationId,
      integrationId: scim.integrationId,
      now,
      email: input.email,
      accountName: input.accountName,
      scimUserName: input.userName,
      externalId: input.externalId,
      scimAttributes: input.attributes,
      status: input.active ? "active" : "suspended",
    },
    auditActor(c),
  );
  if (provisioned.outcome === "integrationGone") throw tokenRefused();
  if (provisioned.outcome === "userNameTaken") throw new ScimError(409, `userName ${input.userName.slice(0, 64)} is already taken in this organization`, "uniqueness");
  if (provisioned.outcome === "alreadyMember") throw new ScimError(409, `the person with e-mail ${input.email.slice(0, 64)} is already in this organization`, "uniqueness");
  counted(c);
  const { account } = provisioned;
  const userId = account.id;
  // The person as written (no read back): the same shape a GET answers.
  const resource = userResource(
    {
      userId,
      email: account.email,
      accountName: account.name,
      relation: "member",
      status: input.active ? "active" : "suspended",
      source: "scim",
      createdAt: now,
      updatedAt: now,
      scimUserName: input.userName,
      externalId: input.externalId,
      scimAttributes: input.attributes,
      scimIntegrationId: scim.integrationId,
    },
    baseUrl(c),
  );
  return scimJson(c, resource, 201, { Location: String((resource.meta as { location: string }).location) });
}

/**
 * Before an owner is suspended or removed: the token must be one an active owner made (a holder of
 * scim.manage who is no owner cannot reach past their own relation through a token of theirs), and
 * another active owner must stay. The owners' rows are locked first (lockOwners), so two such changes
 * at once wait for each other.
 */
async function keepOwner(tx: Database, scim: ScimTokenAuth, userId: string, what: "suspended" | "removed"): Promise<void> {
  const owners = await lockOwners(tx, scim.organizationId);
  if (!owners.some((o) => o.userId === scim.madeBy && o.active)) {
    throw new ScimError(403, `an owner is ${what} over SCIM only with a token an active owner of the organization made`);
  }
  if (!owners.some((o) => o.userId !== userId && o.active)) {
    throw new ScimError(400, `the organization's last active owner cannot be ${what}`, "mutability");
  }
}

/**
 * Writes a person's new state (PUT, or PATCH's result): userName unique, the last owner kept active.
 * `make` builds it from the person as they are, read and held inside the change: two changes of
 * one person at once run one after the other, and the second builds on the first (a suspension and
 * a rename at once end suspended and renamed).
 */
async function replaceUser(c: ScimContext, seen: PersonRow, make: (current: PersonRow) => UserChange, detail: string): Promise<Response> {
  const { db } = c.get("deps");
  const scim = c.get("scim");
  const orgId = scim.organizationId;
  const { userId } = seen;
  await change(c, { action: "Update", detail, targetType: "User", targetIds: [userId] }, async (tx, meta) => {
    // An owner's row is one of the owners' rows, which every change that must keep an owner locks in one
    // order (lockOwners): taken in that order here too, before the person's row.
    if (seen.relation === "owner") await lockOwners(tx, orgId);
    const existing = await findPerson(tx, orgId, userId, "update");
    if (!existing) throw userNotFound(userId);
    const input = make(existing);
    // A change that does not say (`active` left out, removed or null) keeps the status: only true or false changes it.
    const active = input.active ?? existing.status === "active";
    const suspending = !active && existing.status === "active";
    meta.detail = suspending ? "SCIM: Suspend User" : active && existing.status !== "active" ? "SCIM: Reactivate User" : detail;
    meta.targetNames = [input.userName];
    await lockUserName(tx, orgId, input.userName);
    if (await findPersonByUserName(tx, orgId, input.userName, existing.userId)) {
      throw new ScimError(409, `userName ${input.userName.slice(0, 64)} is already taken in this organization`, "uniqueness");
    }
    if (suspending && existing.relation === "owner") await keepOwner(tx, scim, existing.userId, "suspended");
    await updatePerson(tx, {
      orgId,
      userId: existing.userId,
      integrationId: scim.integrationId,
      now: new Date(),
      scimUserName: input.userName,
      externalId: input.externalId,
      scimAttributes: input.attributes,
      status: active ? "active" : "suspended",
      suspending,
      ...(input.accountName && existing.source === "scim" ? { accountName: input.accountName } : {}),
    });
  });
  return scimJson(c, userResource(await existingPerson(db, orgId, userId), baseUrl(c)));
}

export async function listUsers(c: ScimContext): Promise<Response> {
  const page = paging(c);
  const filter = c.req.query("filter");
  const { total, rows } = await listPeople(c.get("deps").db, c.get("scim").organizationId, filter?.trim() ? filter : undefined, page);
  const base = baseUrl(c);
  const attributes = attributeList(c.req.query("attributes"));
  const excluded = attributeList(c.req.query("excludedAttributes"));
  return listResponse(c, total, page.startIndex, rows.map((r) => project(userResource(r, base), attributes, excluded)));
}

export async function getUser(c: ScimContext): Promise<Response> {
  const row = await existingPerson(c.get("deps").db, c.get("scim").organizationId, c.req.param("id")!);
  const resource = userResource(row, baseUrl(c));
  const groups = await groupsOfPerson(c.get("deps").db, c.get("scim").integrationId, row.userId);
  const base = baseUrl(c);
  if (groups.length) resource.groups = groups.map((g) => ({ value: g.id, display: g.displayName, $ref: `${base}/Groups/${g.id}`, type: "direct" }));
  return scimJson(c, project(resource, attributeList(c.req.query("attributes")), attributeList(c.req.query("excludedAttributes"))));
}

export async function putUser(c: ScimContext): Promise<Response> {
  const existing = await existingPerson(c.get("deps").db, c.get("scim").organizationId, c.req.param("id")!);
  const input = parseUserChange(await readBody(c));
  return replaceUser(c, existing, () => input, "SCIM: Replace User");
}

export async function patchUser(c: ScimContext): Promise<Response> {
  const existing = await existingPerson(c.get("deps").db, c.get("scim").organizationId, c.req.param("id")!);
  const ops = patchOperations(await readBody(c), "User");
  const base = baseUrl(c);
  // Applied to the person as they are when the change holds them; spelled as the patch is: attributes
  // stored before names were spelled are matched too.
  return replaceUser(c, existing, (current) => parseUserChange(applyPatch(withReadablePrimaries(spelledResource("User", userResource(current, base))), ops)), "SCIM: Update User");
}

export async function deleteUser(c: ScimContext): Promise<Response> {
  const scim = c.get("scim");
  const existing = await existingPerson(c.get("deps").db, scim.organizationId, c.req.param("id")!);
  await change(
    c,
    { action: "Delete", detail: "SCIM: Delete User", targetType: "User", targetIds: [existing.userId], targetNames: [existing.scimUserName ?? existing.email] },
    async (tx) => {
      if (existing.relation === "owner") await keepOwner(tx, scim, existing.userId, "removed");
      if (!(await removePerson(tx, scim.organizationId, existing.userId))) throw userNotFound(existing.userId);
    },
  );
  return c.body(null, 204);
}
