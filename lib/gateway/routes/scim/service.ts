import { Hono, type Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { scimPatch, type ScimPatchOperation } from "scim-patch";
import type { AppEnv } from "../../context";
import { hashSecret } from "../../crypto";
import { fromDatabaseError, GatewayError, RETRY_AFTER_SECONDS, uniqueClash } from "../../errors";
import { callOrigin } from "../../origin";
import { SCIM_BASE_PATH } from "@/lib/contract/constants";
import type { Database } from "../../store/client";
import {
  deleteGroup,
  displayNames,
  findGroup,
  findGroupByName,
  findPerson,
  findPersonByUserName,
  findScimTokenByHash,
  groupMemberIds,
  groupsOfPerson,
  insertScimAuditEntry,
  insertGroup,
  provisionPerson,
  listGroups,
  listPeople,
  lockUserName,
  peopleAmong,
  refreshProvisioningStatistics,
  setGroupMembers,
  touchScimToken,
  updateGroup,
  updatePerson,
  type GroupRow,
  type PersonRow,
  type ScimTokenAuth,
} from "../../store/queries/scim-service";
import { ScimFilterError } from "../../store/queries/scim-filters";
import { syncGroupBindings } from "../../store/queries/scim-group-bindings";
import { lockOwners, removePerson } from "../../store/queries/people";
import {
  attributeList,
  groupResource,
  invalidValue,
  LIST_RESPONSE,
  MAX_RESULTS,
  parseGroup,
  parseUser,
  PATCH_OP,
  project,
  resourceTypes,
  SCIM_MEDIA_TYPE,
  schemas,
  ScimError,
  scimErrorBody,
  serviceProviderConfig,
  spelled,
  spelledPath,
  spelledResource,
  userResource,
  wantsMembers,
  type ResourceKind,
  type UserInput,
} from "./resources";

/**
 * The SCIM 2.0 service provider (RFC 7643 / 7644) at `<server root>/scim/v2`: an integration's
 * token names the organization; Users are its people, Groups the integration's groups, whose
 * members hold the role bindings the integration's group mappings name.
 */

type ScimEnv = { Variables: AppEnv["Variables"] & { scim: ScimTokenAuth } };
type ScimContext = Context<ScimEnv>;

/** How often, at most, one token's last use (and its integration's last activity) is written. */
const TOUCH_EVERY_MS = 1_000;
const touched = new Map<string, number>();

/** SCIM changes between refreshes of the planner's statistics (a first sync grows the tables fast). */
const ANALYZE_EVERY = 500;
let changesSinceAnalyze = 0;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function scimJson(c: ScimContext, body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return c.body(JSON.stringify(body), status as 200, { "Content-Type": `${SCIM_MEDIA_TYPE}; charset=utf-8`, ...headers });
}

/** The store's unique indexes on SCIM names (migration 0012), as the 409 the service's own check answers. */
const SCIM_UNIQUE_NAMES = new Map([
  ["memberships_scim_user_name_uq", new ScimError(409, "the userName is already taken in this organization", "uniqueness")],
  ["scim_groups_name_uq", new ScimError(409, "a group with this displayName exists already", "uniqueness")],
]);

/** A failure as a SCIM error (RFC 7644 §3.12); also the gateway frame's own (413, 504) for requests to the service. */
export function onScimError(thrown: Error, c: Context): Response {
  // What the store refused (text it cannot hold, a name another request took meanwhile) is the
  // request's fault; a store away for a failover is a 503.
  const err = SCIM_UNIQUE_NAMES.get(uniqueClash(thrown) ?? "") ?? fromDatabaseError(thrown) ?? thrown;
  let status = 500;
  let detail = "internal error";
  let scimType: string | undefined;
  if (err instanceof ScimError) ({ status, detail, scimType } = err);
  else if (err instanceof ScimFilterError) [status, detail, scimType] = [400, err.message, "invalidFilter"];
  else if (err instanceof GatewayError) [status, detail, scimType] = [err.status, err.message, err.status === 400 ? "invalidValue" : undefined];
  else if (err instanceof HTTPException) [status, detail] = [err.status, err.message || "request refused"];
  else c.get("deps")?.logger.error("unhandled error", { request_id: c.get("requestId") ?? "", error: err.stack ?? String(err) });
  c.set("errorMessage", detail);
  // RFC 6750 §3: a 401 names the scheme the service takes.
  const challenge: Record<string, string> = status === 401 ? { "WWW-Authenticate": "Bearer" } : status === 503 ? { "Retry-After": String(RETRY_AFTER_SECONDS) } : {};
  return c.body(JSON.stringify(scimErrorBody(status, detail, scimType)), status as 400, { "Content-Type": `${SCIM_MEDIA_TYPE}; charset=utf-8`, ...challenge });
}

/** The server root as the caller reached it, so Location and meta.location work behind the console's server too. */
function baseUrl(c: ScimContext): string {
  const url = new URL(c.req.url);
  const proto = c.req.header("x-forwarded-proto")?.split(",")[0]?.trim();
  const host = c.req.header("x-forwarded-host")?.split(",")[0]?.trim();
  const origin = `${proto && /^https?$/.test(proto) ? proto : url.protocol.replace(":", "")}://${host && /^[A-Za-z0-9.:[\]-]+$/.test(host) ? host : url.host}`;
  return `${origin}${SCIM_BASE_PATH}`;
}

/**
 * `__proto__` is no attribute name (RFC 7643 §2.1: a name starts with a letter), and the one JSON
 * key a JavaScript object cannot keep: copied by assignment it becomes the object's prototype, and
 * the attribute would vanish from what is stored while its values still answered reads of it.
 */
const NO_ATTRIBUTE = "__proto__";

async function readBody(c: ScimContext): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") throw new ScimError(400, "the request has no body", "invalidSyntax");
  try {
    return JSON.parse(text, (key, value: unknown) => {
      if (key === NO_ATTRIBUTE) throw new ScimError(400, `"${NO_ATTRIBUTE}" is not an attribute name`, "invalidValue");
      return value;
    }) as unknown;
  } catch (error) {
    if (error instanceof ScimError) throw error;
    throw new ScimError(400, "the body is not valid JSON", "invalidSyntax");
  }
}

/** Bearer token → the integration and organization; 401 for anything else. */
async function authenticate(c: ScimContext, next: () => Promise<void>): Promise<void> {
  const header = c.req.header("authorization") ?? "";
  const match = header.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match) throw new ScimError(401, "Authorization: Bearer <token> of a SCIM integration is required");
  const { db, reads } = c.get("deps");
  const secretHash = hashSecret(match[1]!);
  const token = await reads.scimTokens.get(secretHash, () => findScimTokenByHash(db, secretHash));
  const now = new Date();
  if (!token || token.expiresAt.getTime() <= now.getTime()) throw new ScimError(401, "the token is unknown, deleted or expired");
  if (token.integrationStatus !== "active") throw new ScimError(401, "the SCIM integration is inactive");
  c.set("scim", token);
  const last = touched.get(token.tokenId) ?? token.lastUsedAt?.getTime() ?? 0;
  if (now.getTime() - last >= TOUCH_EVERY_MS) {
    touched.set(token.tokenId, now.getTime());
    if (touched.size > 10_000) touched.clear();
    await touchScimToken(db, token.tokenId, token.integrationId, now);
  }
  await next();
}

/** Who an audit entry of this request names: the integration, from the caller's address, since the request began. */
function auditActor(c: ScimContext): { actorId: string; actorName: string; clientIp: string; startTime: Date } {
  const scim = c.get("scim");
  return { actorId: scim.integrationId, actorName: scim.integrationName, clientIp: callOrigin(c as unknown as Context<AppEnv>).clientIp, startTime: c.get("startedAt") };
}

/** Counts a change towards the next refresh of the planner's statistics. */
function counted(c: ScimContext): void {
  changesSinceAnalyze++;
  if (changesSinceAnalyze >= ANALYZE_EVERY) {
    changesSinceAnalyze = 0;
    // In the background: the answer does not wait for the statistics.
    refreshProvisioningStatistics(c.get("deps").db).catch((error: unknown) =>
      c.get("deps").logger.warn("could not refresh the planner's statistics", { error: error instanceof Error ? error.message : String(error) }),
    );
  }
}

/** Runs a change in one transaction with its audit entry (actor: the integration, surface SCIM). */
async function change<T>(
  c: ScimContext,
  meta: { action: "Create" | "Update" | "Delete"; detail: string; targetType: "User" | "Group"; targetIds?: string[]; targetNames?: string[] },
  work: (tx: Database, meta: { detail: string; targetIds?: string[]; targetNames?: string[] }) => Promise<T>,
): Promise<T> {
  const scim = c.get("scim");
  const out = await c.get("deps").db.transaction(async (raw) => {
    const tx = raw as unknown as Database;
    const out = await work(tx, meta);
    await insertScimAuditEntry(tx, {
      ...auditActor(c),
      organizationId: scim.organizationId,
      action: meta.action,
      actionDetail: meta.detail,
      targetIds: meta.targetIds ?? [],
      targetNames: (meta.targetNames ?? []).map((n) => n.slice(0, 256)),
      targetType: meta.targetType,
    });
    return out;
  });
  counted(c);
  return out;
}

function paging(c: ScimContext): { offset: number; limit: number; startIndex: number } {
  const parseInt10 = (name: string, raw: string | undefined): number | undefined => {
    if (raw === undefined || raw === "") return undefined;
    if (!/^-?\d+$/.test(raw.trim())) throw invalidValue(`${name} must be an integer`);
    return Number(raw);
  };
  // RFC 7644 §3.4.2.4: startIndex below 1 is 1; a negative count is 0, one above the maximum the maximum.
  const startIndex = Math.max(1, parseInt10("startIndex", c.req.query("startIndex")) ?? 1);
  if (!Number.isSafeInteger(startIndex)) throw invalidValue("startIndex is too large");
  const count = Math.min(MAX_RESULTS, Math.max(0, parseInt10("count", c.req.query("count")) ?? MAX_RESULTS));
  return { offset: startIndex - 1, limit: count, startIndex };
}

function listResponse(c: ScimContext, total: number, startIndex: number, resources: unknown[]): Response {
  return scimJson(c, { schemas: [LIST_RESPONSE], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources });
}

const userNotFound = (id: string) => new ScimError(404, `User ${id.slice(0, 64)} not found`);
const groupNotFound = (id: string) => new ScimError(404, `Group ${id.slice(0, 64)} not found`);

async function existingPerson(db: Database, orgId: string, id: string): Promise<PersonRow> {
  const row = UUID.test(id) ? await findPerson(db, orgId, id) : undefined;
  if (!row) throw userNotFound(id);
  return row;
}

/**
 * Names a JavaScript value answers for itself, not as data. scim-patch walks a path, and each key of a
 * value (itself read as a path), by assignment, stepping into inherited names too: `toString.x` or
 * `constructor.prototype.x` changed a function or prototype every object of the process shares, and
 * `hasOwnProperty.call` broke every later request. None is a SCIM attribute name.
 */
const OBJECT_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));
/** What a walk over JSON data could step into besides data: the names arrays, strings, numbers and booleans inherit. */
const INHERITED_NAMES = new Set([...OBJECT_NAMES, ...[Array, String, Number, Boolean].flatMap((type) => Object.getOwnPropertyNames(type.prototype))]);

/**
 * Whether a path reaches past data: any name in it (split at everything that is not part of an
 * attribute name, filters included) is one of Object.prototype's, or one before the last is one a
 * JSON value inherits (the last is only assigned: `emails.length` sets an own property).
 */
function reachesPrototype(path: string): boolean {
  const names = path.split(/[^\w$-]+/).filter(Boolean);
  return names.some((name, i) => OBJECT_NAMES.has(name) || (i < names.length - 1 && INHERITED_NAMES.has(name)));
}

/**
 * How much one PATCH may ask. scim-patch splits a path with a pattern whose time grows with the
 * square of the path's length (a 32 KB path held the process for a second), and compares each added
 * value with each one present. Identity providers send short paths and at most a hundred or so
 * member changes at a time.
 */
const PATCH_LIMITS = { operations: 1_000, pathLength: 1_024, values: 1_000 };

/** The keys scim-patch reads as paths in an operation's value: an object's, and those of a list's objects. */
function valueKeys(value: unknown): string[] {
  const objects = Array.isArray(value) ? value : [value];
  return objects.flatMap((item) => (typeof item === "object" && item !== null && !Array.isArray(item) ? Object.keys(item) : []));
}

/** PATCH operations as Okta and Entra ID send them, made what the PATCH library reads. */
function patchOperations(body: unknown, kind: ResourceKind): ScimPatchOperation[] {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new ScimError(400, "the body must be a PatchOp object", "invalidSyntax");
  const schemasSent = (body as { schemas?: unknown }).schemas;
  if (schemasSent !== undefined && !(Array.isArray(schemasSent) && schemasSent.includes(PATCH_OP))) {
    throw new ScimError(400, `schemas must contain ${PATCH_OP}`, "invalidSyntax");
  }
  const ops = (body as { Operations?: unknown; operations?: unknown }).Operations ?? (body as { operations?: unknown }).operations;
  if (!Array.isArray(ops) || ops.length === 0) throw new ScimError(400, "Operations must be a non-empty array", "invalidSyntax");
  if (ops.length > PATCH_LIMITS.operations) throw new ScimError(400, `Operations holds more than ${PATCH_LIMITS.operations} operations`, "invalidValue");
  const out: ScimPatchOperation[] = [];
  ops.forEach((raw: unknown, i) => {
    if (typeof raw !== "object" || raw === null) throw new ScimError(400, `Operations[${i}] must be an object`, "invalidSyntax");
    const { op, path, value } = raw as { op?: unknown; path?: unknown; value?: unknown };
    const name = typeof op === "string" ? op.toLowerCase() : "";
    if (name !== "add" && name !== "replace" && name !== "remove") throw new ScimError(400, `Operations[${i}].op must be add, replace or remove`, "invalidSyntax");
    if (path !== undefined && typeof path !== "string") throw new ScimError(400, `Operations[${i}].path must be a string`, "invalidPath");
    // Read-only attributes echoed back are ignored.
    if (typeof path === "string" && /^(id|meta(\..*)?|schemas)$/i.test(path.trim())) return;
    const paths = [...(typeof path === "string" ? [path] : []), ...valueKeys(value)];
    const long = paths.find((p) => p.length > PATCH_LIMITS.pathLength);
    if (long !== undefined) throw new ScimError(400, `Operations[${i}]: a path or value key is longer than ${PATCH_LIMITS.pathLength} characters`, "invalidPath");
    if (Array.isArray(value) && value.length > PATCH_LIMITS.values) throw new ScimError(400, `Operations[${i}].value holds more than ${PATCH_LIMITS.values} values`, "invalidValue");
    const prototypal = paths.find(reachesPrototype);
    if (prototypal !== undefined) {
      throw new ScimError(400, `Operations[${i}]: ${JSON.stringify(prototypal.slice(0, 64))} names what a JavaScript object inherits (such as toString, constructor or __proto__), not an attribute`, "invalidPath");
    }
    // scim-patch matches names exactly, and they are case-insensitive: path and value are spelled as the schemas do.
    const target = path ? spelledPath(kind, path) : undefined;
    if (path && !target) throw new ScimError(400, `Operations[${i}].path ${path.slice(0, 64)} is not an attribute path`, "invalidPath");
    const sent = target ? spelled(value, target.names) : value;
    if (name === "remove") {
      if (!target) throw new ScimError(400, `Operations[${i}]: remove needs a path`, "noTarget");
      // Entra ID: path "members" with the values to remove (a list, or one); each becomes a value filter, as Okta sends it.
      if (/^[A-Za-z]+$/.test(target.path) && typeof sent === "object" && sent !== null) {
        for (const [j, item] of (Array.isArray(sent) ? sent : [sent]).entries()) {
          const id = (item as { value?: unknown } | null)?.value;
          if (typeof id !== "string") throw new ScimError(400, `Operations[${i}].value${Array.isArray(sent) ? `[${j}]` : ""}.value must be a string`, "invalidValue");
          out.push({ op: "remove", path: `${target.path}[value eq ${JSON.stringify(id)}]` } as ScimPatchOperation);
        }
        return;
      }
      out.push({ op: "remove", path: target.path, ...(sent !== undefined ? { value: sent } : {}) } as ScimPatchOperation);
      return;
    }
    if (!target) {
      if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ScimError(400, `Operations[${i}].value must be an object when there is no path`, "invalidValue");
      // Each key is an attribute path (RFC 7644 §3.5.2.1).
      const rest = Object.fromEntries(
        Object.entries(value)
          .filter(([k]) => !/^(id|meta|schemas)$/i.test(k))
          .map(([k, v]) => {
            const key = spelledPath(kind, k);
            return key ? [key.path, spelled(v, key.names)] : [k, v];
          }),
      );
      if (Object.keys(rest).length === 0) return;
      out.push({ op: name, value: rest } as ScimPatchOperation);
      return;
    }
    if (value === undefined) throw new ScimError(400, `Operations[${i}].value is required for ${name}`, "invalidValue");
    out.push({ op: name, path: target.path, value: sent } as ScimPatchOperation);
  });
  return out;
}

function applyPatch<T extends object>(resource: T, ops: ScimPatchOperation[]): T {
  if (ops.length === 0) return resource;
  try {
    // Any options drop the library's default treatMissingAsAdd: a replace of a missing attribute is an add (RFC 7644 §3.5.2.3).
    return scimPatch(resource as never, ops, { mutateDocument: false, treatMissingAsAdd: true }) as T;
  } catch (error) {
    // scim-patch's scimCode is noTarget or invalidSyntax; paths were checked before, so the rest is the value's fault.
    const e = error as { scimCode?: string; message?: string };
    throw new ScimError(400, `the patch cannot be applied: ${String(e.message ?? error).slice(0, 200)}`, e.scimCode === "noTarget" ? "noTarget" : "invalidValue");
  }
}

// ---------------------------------------------------------------- Users

async function createUser(c: ScimContext): Promise<Response> {
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
async function replaceUser(c: ScimContext, seen: PersonRow, make: (current: PersonRow) => UserInput, detail: string): Promise<Response> {
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
    const suspending = !input.active && existing.status === "active";
    meta.detail = suspending ? "SCIM: Suspend User" : input.active && existing.status !== "active" ? "SCIM: Reactivate User" : detail;
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
      status: input.active ? "active" : "suspended",
      ...(input.accountName && existing.source === "scim" ? { accountName: input.accountName } : {}),
    });
  });
  return scimJson(c, userResource(await existingPerson(db, orgId, userId), baseUrl(c)));
}

async function listUsers(c: ScimContext): Promise<Response> {
  const page = paging(c);
  const filter = c.req.query("filter");
  const { total, rows } = await listPeople(c.get("deps").db, c.get("scim").organizationId, filter?.trim() ? filter : undefined, page);
  const base = baseUrl(c);
  const attributes = attributeList(c.req.query("attributes"));
  const excluded = attributeList(c.req.query("excludedAttributes"));
  return listResponse(c, total, page.startIndex, rows.map((r) => project(userResource(r, base), attributes, excluded)));
}

async function getUser(c: ScimContext): Promise<Response> {
  const row = await existingPerson(c.get("deps").db, c.get("scim").organizationId, c.req.param("id")!);
  const resource = userResource(row, baseUrl(c));
  const groups = await groupsOfPerson(c.get("deps").db, c.get("scim").organizationId, row.userId);
  const base = baseUrl(c);
  if (groups.length) resource.groups = groups.map((g) => ({ value: g.id, display: g.displayName, $ref: `${base}/Groups/${g.id}`, type: "direct" }));
  return scimJson(c, project(resource, attributeList(c.req.query("attributes")), attributeList(c.req.query("excludedAttributes"))));
}

async function putUser(c: ScimContext): Promise<Response> {
  const existing = await existingPerson(c.get("deps").db, c.get("scim").organizationId, c.req.param("id")!);
  const input = parseUser(await readBody(c));
  return replaceUser(c, existing, () => input, "SCIM: Replace User");
}

async function patchUser(c: ScimContext): Promise<Response> {
  const existing = await existingPerson(c.get("deps").db, c.get("scim").organizationId, c.req.param("id")!);
  const ops = patchOperations(await readBody(c), "User");
  const base = baseUrl(c);
  // Applied to the person as they are when the change holds them; spelled as the patch is: attributes
  // stored before names were spelled are matched too.
  return replaceUser(c, existing, (current) => parseUser(applyPatch(spelledResource("User", userResource(current, base)), ops)), "SCIM: Update User");
}

async function deleteUser(c: ScimContext): Promise<Response> {
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

// ---------------------------------------------------------------- Groups

async function groupView(c: ScimContext, groupId: string, withMembers = true): Promise<Record<string, unknown>> {
  const { db } = c.get("deps");
  const scim = c.get("scim");
  const row = await findGroup(db, scim.integrationId, groupId);
  if (!row) throw groupNotFound(groupId);
  if (!withMembers) return groupResource(row, null, baseUrl(c));
  const ids = (await groupMemberIds(db, [row.id])).get(row.id) ?? [];
  const names = await displayNames(db, scim.organizationId, ids);
  return groupResource(row, ids.map((value) => ({ value, display: names.get(value) })), baseUrl(c));
}

async function checkMembers(db: Database, orgId: string, ids: string[]): Promise<void> {
  membersArePeople(ids, await peopleAmong(db, orgId, ids));
}

/** Refuses a member id that is not one of `people` (the organization's, as read). */
function membersArePeople(ids: string[], people: Set<string>): void {
  const bad = ids.find((id) => !UUID.test(id));
  if (bad !== undefined) throw invalidValue(`members: ${bad.slice(0, 64)} is not a person of this organization`);
  const missing = ids.find((id) => !people.has(id));
  if (missing !== undefined) throw invalidValue(`members: ${missing} is not a person of this organization`);
}

async function createGroup(c: ScimContext): Promise<Response> {
  const input = parseGroup(await readBody(c));
  const { db } = c.get("deps");
  const scim = c.get("scim");
  if (await findGroupByName(db, scim.integrationId, input.displayName)) throw new ScimError(409, `a group named ${input.displayName.slice(0, 64)} exists already`, "uniqueness");
  const members = input.members ?? [];
  await checkMembers(db, scim.organizationId, members);
  const now = new Date();
  const id = await change(c, { action: "Create", detail: "SCIM: Create Group", targetType: "Group", targetNames: [input.displayName] }, async (tx, meta) => {
    const row = await insertGroup(tx, { orgId: scim.organizationId, integrationId: scim.integrationId, displayName: input.displayName, externalId: input.externalId, now });
    meta.targetIds = [row.id];
    await setGroupMembers(tx, row.id, members, [], now);
    await syncGroupBindings(tx, scim.organizationId, scim.integrationId, [row.id]);
    return row.id;
  });
  const resource = await groupView(c, id);
  return scimJson(c, resource, 201, { Location: String((resource.meta as { location: string }).location) });
}

type GroupInput = { displayName: string; externalId: string | null; members: string[] | null };

/**
 * Writes a group's new state: name, external id, members (the difference), and the bindings that
 * follow. `make` builds it from the group as it is, read and held inside the change (with its member
 * ids): two changes of one group at once run one after the other, and the second builds on the first
 * (two member additions at once keep both).
 */
async function replaceGroup(c: ScimContext, groupId: string, make: (row: GroupRow, members: string[]) => GroupInput, detail: string): Promise<Response> {
  const scim = c.get("scim");
  await change(c, { action: "Update", detail, targetType: "Group", targetIds: [groupId] }, async (tx, meta) => {
    const row = await findGroup(tx, scim.integrationId, groupId, "update");
    if (!row) throw groupNotFound(groupId);
    const current = (await groupMemberIds(tx, [row.id])).get(row.id) ?? [];
    const input = make(row, current);
    if (await findGroupByName(tx, scim.integrationId, input.displayName, row.id)) {
      throw new ScimError(409, `a group named ${input.displayName.slice(0, 64)} exists already`, "uniqueness");
    }
    const wanted = input.members ?? current;
    const have = new Set(current);
    const want = new Set(wanted);
    const add = wanted.filter((id) => !have.has(id));
    const remove = current.filter((id) => !want.has(id));
    // The people added and removed held (in one order) while this runs: a removal of one of them runs before or after it.
    membersArePeople(add, await peopleAmong(tx, scim.organizationId, [...add, ...remove], "share"));
    meta.targetIds = [row.id, ...add, ...remove].slice(0, 20);
    meta.targetNames = [input.displayName];
    const now = new Date();
    await updateGroup(tx, row.id, { displayName: input.displayName, externalId: input.externalId, now });
    await setGroupMembers(tx, row.id, add, remove, now);
    await syncGroupBindings(tx, scim.organizationId, scim.integrationId, [row.id]);
  });
  return scimJson(c, await groupView(c, groupId));
}

async function listGroupsHandler(c: ScimContext): Promise<Response> {
  const page = paging(c);
  const filter = c.req.query("filter");
  const { db } = c.get("deps");
  const scim = c.get("scim");
  const attributes = attributeList(c.req.query("attributes"));
  const excluded = attributeList(c.req.query("excludedAttributes"));
  const { total, rows } = await listGroups(db, scim.integrationId, filter?.trim() ? filter : undefined, page);
  const base = baseUrl(c);
  let resources: unknown[];
  if (wantsMembers(attributes, excluded)) {
    const members = await groupMemberIds(db, rows.map((r) => r.id));
    const names = await displayNames(db, scim.organizationId, [...new Set([...members.values()].flat())]);
    resources = rows.map((r) => project(groupResource(r, (members.get(r.id) ?? []).map((value) => ({ value, display: names.get(value) })), base), attributes, excluded));
  } else resources = rows.map((r) => project(groupResource(r, null, base), attributes, excluded));
  return listResponse(c, total, page.startIndex, resources);
}

async function getGroup(c: ScimContext): Promise<Response> {
  const id = c.req.param("id")!;
  if (!UUID.test(id)) throw groupNotFound(id);
  const attributes = attributeList(c.req.query("attributes"));
  const excluded = attributeList(c.req.query("excludedAttributes"));
  return scimJson(c, project(await groupView(c, id, wantsMembers(attributes, excluded)), attributes, excluded));
}

async function putGroup(c: ScimContext): Promise<Response> {
  const id = c.req.param("id")!;
  if (!UUID.test(id)) throw groupNotFound(id);
  const input = parseGroup(await readBody(c));
  return replaceGroup(c, id, () => ({ ...input, members: input.members ?? [] }), "SCIM: Replace Group");
}

async function patchGroup(c: ScimContext): Promise<Response> {
  const id = c.req.param("id")!;
  if (!UUID.test(id)) throw groupNotFound(id);
  const ops = patchOperations(await readBody(c), "Group");
  const base = baseUrl(c);
  return replaceGroup(
    c,
    id,
    (row, members) => {
      // Entra ID removes members with path "members" and a list of values: the library removes those values.
      const patched = applyPatch(groupResource(row, members.map((value) => ({ value })), base), ops);
      const input = parseGroup(patched);
      return { ...input, members: input.members ?? [] };
    },
    "SCIM: Update Group",
  );
}

async function deleteGroupHandler(c: ScimContext): Promise<Response> {
  const id = c.req.param("id")!;
  const scim = c.get("scim");
  const row = UUID.test(id) ? await findGroup(c.get("deps").db, scim.integrationId, id) : undefined;
  if (!row) throw groupNotFound(id);
  await change(c, { action: "Delete", detail: "SCIM: Delete Group", targetType: "Group", targetIds: [row.id], targetNames: [row.displayName] }, async (tx) => {
    await deleteGroup(tx, row.id);
  });
  return c.body(null, 204);
}

// ---------------------------------------------------------------- the service

export function createScimService(): Hono<ScimEnv> {
  const scim = new Hono<ScimEnv>();
  scim.onError(onScimError);
  scim.use("*", authenticate);

  scim.get("/ServiceProviderConfig", (c) => scimJson(c, serviceProviderConfig(baseUrl(c))));
  scim.get("/ResourceTypes", (c) => {
    const types = resourceTypes(baseUrl(c));
    return listResponse(c, types.length, 1, types);
  });
  scim.get("/ResourceTypes/:id", (c) => {
    const found = resourceTypes(baseUrl(c)).find((t) => t.id === c.req.param("id"));
    if (!found) throw new ScimError(404, "no such resource type");
    return scimJson(c, found);
  });
  scim.get("/Schemas", (c) => {
    const all = schemas(baseUrl(c));
    return listResponse(c, all.length, 1, all);
  });
  scim.get("/Schemas/:id", (c) => {
    const found = schemas(baseUrl(c)).find((s) => s.id === c.req.param("id"));
    if (!found) throw new ScimError(404, "no such schema");
    return scimJson(c, found);
  });

  scim.get("/Users", listUsers);
  scim.post("/Users", createUser);
  scim.get("/Users/:id", getUser);
  scim.put("/Users/:id", putUser);
  scim.patch("/Users/:id", patchUser);
  scim.delete("/Users/:id", deleteUser);

  scim.get("/Groups", listGroupsHandler);
  scim.post("/Groups", createGroup);
  scim.get("/Groups/:id", getGroup);
  scim.put("/Groups/:id", putGroup);
  scim.patch("/Groups/:id", patchGroup);
  scim.delete("/Groups/:id", deleteGroupHandler);

  scim.post("/Bulk", () => {
    throw new ScimError(501, "bulk operations are not supported");
  });
  scim.all("*", (c) => {
    throw new ScimError(c.req.method === "GET" || c.req.method === "POST" ? 404 : 405, `no SCIM endpoint ${c.req.method} ${new URL(c.req.url).pathname.slice(0, 128)}`);
  });
  return scim;
}
