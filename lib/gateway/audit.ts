import type { Context } from "hono";
import type { AppEnv, AuditMeta } from "./context";
import { resultName } from "./errors";
import { callOrigin } from "./origin";
import { matchOperation } from "@/lib/contract/operations";
import { routedPath } from "./router";
import type { Database } from "./store/client";
import { firstOrganization } from "./store/queries/first-organization";
import { boundText, insertAuditEntry } from "./store/queries/audit-logs";
import { errorDetail } from "@/lib/error-detail";
import { spendReplayGuard } from "./middleware/replay";

export type AuditedMeta = AuditMeta & { organizationId: string };

export async function writeAuditEntry(
  db: Database,
  c: Context<AppEnv>,
  meta: AuditedMeta,
  outcome: { status: number; errorMessage?: string },
): Promise<void> {
  const caller = c.get("caller");
  const origin = callOrigin(c);
  // No such organization: nowhere to file the entry, and nothing is written.
  await insertAuditEntry(db, {
    organizationId: meta.organizationId,
    projectId: meta.projectId ?? null,
    projectName: meta.projectName ?? null,
    action: meta.action,
    actionDetail: meta.actionDetail,
    actorId: caller.userId,
    actorEmail: caller.email,
    actorType: "user",
    clientIp: origin.clientIp,
    startTime: c.get("startedAt"),
    endTime: new Date(),
    result: resultName(outcome.status),
    errorMessage: outcome.errorMessage ?? "",
    surface: origin.surface,
    locations: meta.locations ?? [],
    targetIds: meta.targetIds ?? [],
    targetNames: meta.targetNames ?? [],
    targetType: meta.targetType,
  });
}

/** Names what a mutating call is about, before anything can fail, for its audit entry. */
export function auditAs(c: Context<AppEnv>, meta: AuditMeta): AuditMeta {
  c.set("audit", meta);
  return meta;
}

/**
 * Runs a mutation in one transaction and files its audit entry in that same
 * transaction. `work` may fill in the meta (ids of what it created). Authorization
 * must be checked before: inside, only `tx` may be used (PGlite has one connection).
 * A failure rolls everything back; the audit middleware then files the failed call.
 * The call's signature is spent first, in the same transaction: it is spent exactly
 * when the change commits, and a retry of a call that rolled back is taken.
 */
export async function mutate<T>(c: Context<AppEnv>, meta: AuditMeta, work: (tx: Database, meta: AuditMeta) => Promise<T>): Promise<T> {
  c.set("audit", meta);
  const result = await c.get("deps").db.transaction(async (tx): Promise<T> => {
    await spendReplayGuard(c, tx as unknown as Database);
    const out = await work(tx as unknown as Database, meta);
    const organizationId = meta.organizationId;
    if (!organizationId) throw new Error("audit entry without organization");
    await writeAuditEntry(tx as unknown as Database, c, { ...meta, organizationId }, { status: 200 });
    return out;
  });
  c.set("audited", true);
  const claim = c.get("replayClaim");
  if (claim) claim.spent = true;
  return result;
}

const ACTIONS: Record<string, string> = { POST: "Create", PUT: "Update", PATCH: "Update", DELETE: "Delete" };

/** Whether a call of this method may change something, and so be audited. */
export const isMutating = (method: string): boolean => method in ACTIONS;

const MAX_TEXT = 256;
const MAX_VALUES = 20;

/** Caller-chosen text made safe to file: control and format characters (bidi overrides, zero-width) shown as U+FFFD, and bounded. */
export function neutralise(text: string, max: number): string {
  return boundText(text.replace(/[\p{Cc}\p{Cf}]/gu, "\uFFFD"), max);
}

/**
 * Every string the request carried: path parameters, query values and the JSON body's strings, each also
 * as the contract's schemas read an id (trimmed): a call naming `<id>%20` is a call about that id, and is
 * filed under it.
 */
async function requestTexts(c: Context<AppEnv>): Promise<Set<string>> {
  const texts = new Set<string>();
  const add = (value: unknown): void => {
    if (typeof value === "string") texts.add(value).add(value.trim());
    else if (Array.isArray(value)) value.forEach(add);
    else if (value && typeof value === "object") Object.values(value).forEach(add);
  };
  add(c.req.param());
  add(c.req.queries());
  if ((c.req.header("content-type") ?? "").toLowerCase().includes("json")) {
    try {
      add(await c.req.json());
    } catch {
      // No body, or not JSON: nothing more was sent.
    }
  }
  return texts;
}

/** The values the caller sent itself, neutralised and bounded; anything else is dropped. */
function onlySent(values: string[] | undefined, sent: Set<string>): string[] {
  return (values ?? [])
    .filter((v) => sent.has(v))
    .slice(0, MAX_VALUES)
    .map((v) => neutralise(v, MAX_TEXT));
}

/** The operations that take their organization's id in the query (`org_id`), not in the path. */
const ORGANIZATION_IN_QUERY: ReadonlySet<string> = new Set(["updateOrganization"]);

/** Files every mutating call that did not file its own entry: the failed ones. */
export async function auditFailures(c: Context<AppEnv>, next: () => Promise<void>): Promise<void> {
  await next();
  if (!isMutating(c.req.method) || c.get("audited")) return;
  const caller = c.get("caller");
  if (!caller) return; // unauthenticated: no actor, no organization to file it under
  // A call to no operation at all changed nothing and names nothing: not an audit event.
  const operation = matchOperation(c.req.method, routedPath(c));
  if (!operation) return;
  const meta = c.get("audit");
  const params = c.req.param() as Record<string, string | undefined>;
  // The query names the organization only where the operation reads it there: any other call's `org_id` is the
  // caller's to choose, and would file its refusal in an organization of the caller's choosing.
  const queried = ORGANIZATION_IN_QUERY.has(operation) ? c.req.query("org_id") : undefined;
  let organizationId = meta?.organizationId ?? params.org_id ?? params.organization_id ?? queried;
  const db = c.get("deps").db;
  organizationId ??= await firstOrganization(db, caller, { includeSuspended: true });
  if (!organizationId) return;
  const action = ACTIONS[c.req.method] ?? "Update";
  const sent = await requestTexts(c);
  try {
    await writeAuditEntry(
      db,
      c,
      {
        action: meta?.action ?? action,
        actionDetail: meta?.actionDetail ?? `${action} ${c.req.routePath.replace(/^\/v1(alpha5)?/, "")}`,
        targetType: meta?.targetType ?? "",
        ...(meta?.locations ? { locations: meta.locations } : {}),
        // A refused call is filed, but it names only what the caller itself sent: never a fact the
        // handler looked up before refusing (another organization's people or resources).
        targetIds: onlySent(meta?.targetIds, sent),
        targetNames: onlySent(meta?.targetNames, sent),
        projectId: onlySent(meta?.projectId ? [meta.projectId] : [], sent)[0] ?? null,
        projectName: onlySent(meta?.projectName ? [meta.projectName] : [], sent)[0] ?? null,
        organizationId,
      },
      { status: c.res.status, errorMessage: neutralise(c.get("errorMessage") ?? "", MAX_TEXT) },
    );
  } catch (error) {
    c.get("deps").logger.error("audit entry not written", { request_id: c.get("requestId"), error: errorDetail(error) });
  }
}
