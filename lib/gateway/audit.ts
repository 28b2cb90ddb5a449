import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Context } from "hono";
import type { AppEnv, AuditMeta } from "./context";
import { resultName } from "./errors";
import { matchOperation } from "@/lib/contract/operations";
import type { Database } from "./store/client";
import { firstOrganization } from "./store/queries/first-organization";
import { auditLog, organizations } from "./store/schema";

export type AuditedMeta = AuditMeta & { organizationId: string };

/** Where a call came from: the console marks its calls; everything else is the API. */
function surface(c: Context<AppEnv>): string {
  return c.req.header("x-stratus-surface") === "console" ? "console" : "api";
}

function clientIp(c: Context<AppEnv>): string {
  const forwarded = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
  if (forwarded) return forwarded.slice(0, 64);
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? "";
}

export async function writeAuditEntry(
  db: Database,
  c: Context<AppEnv>,
  meta: AuditedMeta,
  outcome: { status: number; errorMessage?: string },
): Promise<void> {
  const caller = c.get("caller");
  const [org] = await db
    .select({ name: organizations.name })
    .from(organizations)
    .where(eq(organizations.id, meta.organizationId));
  if (!org) return; // no such organization: nowhere to file the entry
  await db.insert(auditLog).values({
    id: randomUUID(),
    organizationId: meta.organizationId,
    organizationName: org.name,
    projectId: meta.projectId ?? null,
    projectName: meta.projectName ?? null,
    action: meta.action,
    actionDetail: meta.actionDetail,
    actorId: caller.userId,
    actorEmail: caller.email,
    actorType: "user",
    clientIp: clientIp(c),
    startTime: c.get("startedAt"),
    endTime: new Date(),
    result: resultName(outcome.status),
    errorMessage: outcome.errorMessage ?? "",
    surface: surface(c),
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
 */
export async function mutate<T>(c: Context<AppEnv>, meta: AuditMeta, work: (tx: Database, meta: AuditMeta) => Promise<T>): Promise<T> {
  c.set("audit", meta);
  const result = await c.get("deps").db.transaction(async (tx): Promise<T> => {
    const out = await work(tx as unknown as Database, meta);
    const organizationId = meta.organizationId;
    if (!organizationId) throw new Error("audit entry without organization");
    await writeAuditEntry(tx as unknown as Database, c, { ...meta, organizationId }, { status: 200 });
    return out;
  });
  c.set("audited", true);
  return result;
}

const ACTIONS: Record<string, string> = { POST: "Create", PUT: "Update", PATCH: "Update", DELETE: "Delete" };

/** Whether a call of this method may change something, and so be audited. */
export const isMutating = (method: string): boolean => method in ACTIONS;

/** Files every mutating call that did not file its own entry: the failed ones. */
export async function auditFailures(c: Context<AppEnv>, next: () => Promise<void>): Promise<void> {
  await next();
  if (!isMutating(c.req.method) || c.get("audited")) return;
  const caller = c.get("caller");
  if (!caller) return; // unauthenticated: no actor, no organization to file it under
  // A call to no operation at all changed nothing and names nothing: not an audit event.
  if (!matchOperation(c.req.method, new URL(c.req.url).pathname.replace(/^\/v1(alpha5)?(?=\/)/, ""))) return;
  const meta = c.get("audit");
  const params = c.req.param() as Record<string, string | undefined>;
  let organizationId = meta?.organizationId ?? params.org_id ?? params.organization_id ?? c.req.query("org_id");
  const db = c.get("deps").db;
  organizationId ??= await firstOrganization(db, caller.userId);
  if (!organizationId) return;
  const action = ACTIONS[c.req.method] ?? "Update";
  try {
    await writeAuditEntry(
      db,
      c,
      {
        action,
        actionDetail: `${action} ${c.req.routePath.replace(/^\/v1(alpha5)?/, "")}`,
        targetType: "",
        ...meta,
        organizationId,
      },
      { status: c.res.status, errorMessage: c.get("errorMessage") ?? "" },
    );
  } catch (error) {
    c.get("deps").logger.error("audit entry not written", { request_id: c.get("requestId"), error: String(error) });
  }
}
