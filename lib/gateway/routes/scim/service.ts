import { Hono, type Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { hashSecret } from "../../crypto";
import { fromDatabaseError, GatewayError, logCertificateRefusal, resultName, RETRY_AFTER_SECONDS, uniqueClash } from "../../errors";
import { findScimTokenByHash, insertScimAuditEntry, touchScimToken } from "../../store/queries/scim-service";
import { ScimFilterError } from "../../store/queries/scim-filters";
import { SCIM_MEDIA_TYPE, ScimError, scimErrorBody } from "./resources";
import { resourceTypes, schemas, serviceProviderConfig } from "./discovery";
import { isMutating, neutralise } from "../../audit";
import { readBody } from "../../middleware/request-id";
import { auditActor, baseUrl, listResponse, scimJson, tokenRefused, type ScimContext, type ScimEnv } from "./frame";
import { createGroup, deleteGroupHandler, getGroup, listGroupsHandler, patchGroup, putGroup } from "./groups";
import { createUser, deleteUser, getUser, listUsers, patchUser, putUser } from "./users";
import { errorDetail, errorTrace } from "@/lib/error-detail";

/**
 * The SCIM 2.0 service provider (RFC 7643 / 7644) at `<server root>/scim/v2`: an integration's
 * token names the organization; Users are its people, Groups the integration's groups, whose
 * members hold the role bindings the integration's group mappings name.
 */

/** How often, at most, one token's last use (and its integration's last activity) is written. */
const TOUCH_EVERY_MS = 1_000;
const touched = new Map<string, number>();

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
  else c.get("deps")?.logger.error("unhandled error", { request_id: c.get("requestId") ?? "", error: errorTrace(err) });
  if (status === 503) logCertificateRefusal(c.get("deps")?.logger, thrown, c.get("requestId") ?? "");
  c.set("errorMessage", detail);
  // RFC 6750 §3: a 401 names the scheme the service takes.
  const challenge: Record<string, string> = status === 401 ? { "WWW-Authenticate": "Bearer" } : status === 503 ? { "Retry-After": String(RETRY_AFTER_SECONDS) } : {};
  return c.body(JSON.stringify(scimErrorBody(status, detail, scimType)), status as 400, { "Content-Type": `${SCIM_MEDIA_TYPE}; charset=utf-8`, ...challenge });
}

/** Bearer token → the integration and organization; 401 for anything else. */
async function authenticate(c: ScimContext, next: () => Promise<void>): Promise<void> {
  const header = c.req.header("authorization") ?? "";
  const match = header.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match) throw new ScimError(401, "Authorization: Bearer <token> of a SCIM integration is required");
  const { db, reads } = c.get("deps");
  const secretHash = hashSecret(match[1]!);
  // An unknown token is not kept: anyone may send any number of them, and each would push out a known one.
  const token = await reads.scimTokens.get(secretHash, () => findScimTokenByHash(db, secretHash), (found) => found !== undefined);
  const now = new Date();
  if (!token || token.expiresAt.getTime() <= now.getTime()) throw tokenRefused();
  if (token.integrationStatus !== "active") throw new ScimError(401, "the SCIM integration is inactive");
  c.set("scim", token);
  const last = touched.get(token.tokenId) ?? token.lastUsedAt?.getTime() ?? 0;
  if (now.getTime() - last >= TOUCH_EVERY_MS) {
    touched.set(token.tokenId, now.getTime());
    if (touched.size > 10_000) touched.clear();
    await touchScimToken(db, token.tokenId, token.integrationId, now);
  }
  // The body (within the limit, UTF-8) is read only for a known integration, of a call that carries one.
  await (isMutating(c.req.method) ? readBody(c, next) : next());
}

/**
 * Files every SCIM change that failed (its own entry went with its rolled-back transaction), as the gateway files the
 * REST calls that fail (`auditFailures`): actor the integration, the result and message the answer's, and of its target
 * only what the identity provider sent itself (the path's id). A call whose token was refused has no organization to
 * be filed in; nor is a refusal of the token found deleted midway.
 */
async function auditScimFailures(c: ScimContext, next: () => Promise<void>): Promise<void> {
  await next();
  const status = c.res.status;
  // A 401 (the integration deleted since its token was checked) is the token's refusal, filed nowhere, as any other.
  if (!isMutating(c.req.method) || status < 400 || status === 401 || !c.get("scim")) return;
  const [, resource, id] = new URL(c.req.url).pathname.match(/\/(Users|Groups)(?:\/([^/]+))?\/?$/) ?? [];
  if (!resource) return; // no endpoint (404/405) or /Bulk (501): nothing was asked of a resource
  const action = c.req.method === "POST" ? "Create" : c.req.method === "DELETE" ? "Delete" : "Update";
  const targetType = resource === "Users" ? "User" : "Group";
  const scim = c.get("scim");
  try {
    await insertScimAuditEntry(c.get("deps").db, {
      ...auditActor(c),
      organizationId: scim.organizationId,
      action,
      actionDetail: `SCIM: ${action} ${targetType}`,
      targetIds: id ? [neutralise(decodeURIComponentSafe(id), 256)] : [],
      targetNames: [],
      targetType,
      result: resultName(status),
      errorMessage: neutralise(c.get("errorMessage") ?? "", 1024),
    });
  } catch (error) {
    // The store away (a 503 already) or refusing: the answer stands; the failure to file it is said in the log.
    c.get("deps").logger.warn("a failed SCIM change could not be audited", { request_id: c.get("requestId") ?? "", error: errorDetail(error) });
  }
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function createScimService(): Hono<ScimEnv> {
  const scim = new Hono<ScimEnv>();
  scim.onError(onScimError);
  scim.use("*", authenticate);
  scim.use("*", auditScimFailures);

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
