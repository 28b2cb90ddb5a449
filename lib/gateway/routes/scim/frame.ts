import type { Context } from "hono";
import type { AppEnv } from "../../context";
import { callOrigin } from "../../origin";
import { SCIM_BASE_PATH } from "@/lib/contract/constants";
import type { Database } from "../../store/client";
import { insertScimAuditEntry, refreshProvisioningStatistics, type ScimTokenAuth } from "../../store/queries/scim-service";
import { holdScimIntegration } from "../../store/queries/scim";
import { invalidValue, LIST_RESPONSE, MAX_RESULTS, SCIM_MEDIA_TYPE, ScimError } from "./resources";

/** What every handler of the SCIM service shares: its context, bodies, answers, paging and changes with their audit entries. */

export type ScimEnv = { Variables: AppEnv["Variables"] & { scim: ScimTokenAuth } };
export type ScimContext = Context<ScimEnv>;

/** SCIM changes between refreshes of the planner's statistics (a first sync grows the tables fast). */
const ANALYZE_EVERY = 500;
let changesSinceAnalyze = 0;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function scimJson(c: ScimContext, body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return c.body(JSON.stringify(body), status as 200, { "Content-Type": `${SCIM_MEDIA_TYPE}; charset=utf-8`, ...headers });
}

/** The server root as the caller reached it, so Location and meta.location work behind the console's server too. */
export function baseUrl(c: ScimContext): string {
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

export async function readBody(c: ScimContext): Promise<unknown> {
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

/** Who an audit entry of this request names: the integration, from the caller's address, since the request began. */
export function auditActor(c: ScimContext): { actorId: string; actorName: string; clientIp: string; startTime: Date } {
  const scim = c.get("scim");
  return { actorId: scim.integrationId, actorName: scim.integrationName, clientIp: callOrigin(c as unknown as Context<AppEnv>).clientIp, startTime: c.get("startedAt") };
}

/** Counts a change towards the next refresh of the planner's statistics. */
export function counted(c: ScimContext): void {
  changesSinceAnalyze++;
  if (changesSinceAnalyze >= ANALYZE_EVERY) {
    changesSinceAnalyze = 0;
    // In the background: the answer does not wait for the statistics.
    refreshProvisioningStatistics(c.get("deps").db).catch((error: unknown) =>
      c.get("deps").logger.warn("could not refresh the planner's statistics", { error: error instanceof Error ? error.message : String(error) }),
    );
  }
}

/** What a token that is not (or no longer) one of a live integration's is answered. */
export const tokenRefused = () => new ScimError(401, "the token is unknown, deleted or expired");

/**
 * Runs a change in one transaction with its audit entry (actor: the integration, surface SCIM). The
 * integration is held first: one deleted since the token was checked (its tokens with it) is answered
 * as a deleted token is, and a deletion of it starting meanwhile waits until the change is done.
 */
export async function change<T>(
  c: ScimContext,
  meta: { action: "Create" | "Update" | "Delete"; detail: string; targetType: "User" | "Group"; targetIds?: string[]; targetNames?: string[] },
  work: (tx: Database, meta: { detail: string; targetIds?: string[]; targetNames?: string[] }) => Promise<T>,
): Promise<T> {
  const scim = c.get("scim");
  const out = await c.get("deps").db.transaction(async (raw) => {
    const tx = raw as unknown as Database;
    if (!(await holdScimIntegration(tx, scim.organizationId, scim.integrationId))) throw tokenRefused();
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

export function paging(c: ScimContext): { offset: number; limit: number; startIndex: number } {
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

export function listResponse(c: ScimContext, total: number, startIndex: number, resources: unknown[]): Response {
  return scimJson(c, { schemas: [LIST_RESPONSE], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources });
}
