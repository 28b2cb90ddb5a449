import { and, asc, eq, inArray, notInArray } from "drizzle-orm";
import type { z } from "zod";
import type { organizationMfaSchema } from "@/lib/contract/organizations";
import type { Database } from "../client";
import { organizationMfaMethods, organizations } from "../schema";

export type OrganizationMfa = z.infer<typeof organizationMfaSchema>;

type MfaRow = typeof organizationMfaMethods.$inferSelect;

const toMfa = (row: MfaRow): OrganizationMfa => ({ method: row.method as OrganizationMfa["method"], created_at: row.createdAt.toISOString() });

export async function listMfaMethods(db: Database, organizationId: string): Promise<OrganizationMfa[]> {
  const rows = await db
    .select()
    .from(organizationMfaMethods)
    .where(eq(organizationMfaMethods.organizationId, organizationId))
    .orderBy(asc(organizationMfaMethods.createdAt), asc(organizationMfaMethods.method));
  return rows.map(toMfa);
}

/** Required methods of several organizations at once (for the entity listing). */
export async function mfaMethodsByOrganization(db: Database, organizationIds: string[]): Promise<Map<string, OrganizationMfa[]>> {
  const result = new Map<string, OrganizationMfa[]>(organizationIds.map((id) => [id, []]));
  if (organizationIds.length === 0) return result;
  const rows = await db
    .select()
    .from(organizationMfaMethods)
    .where(inArray(organizationMfaMethods.organizationId, organizationIds))
    .orderBy(asc(organizationMfaMethods.createdAt), asc(organizationMfaMethods.method));
  for (const row of rows) result.get(row.organizationId)?.push(toMfa(row));
  return result;
}

/**
 * Makes `methods` the organization's required set: methods that stay keep their
 * created_at, new ones get `now`, the rest go. Returns the resulting set. The moment MFA
 * began to be required (the grace's start) is set as the set goes from none to some, kept
 * while it changes, and cleared when none are left.
 */
export async function setMfaMethods(db: Database, organizationId: string, methods: readonly string[], now: Date): Promise<OrganizationMfa[]> {
  // Concurrent updates of one organization apply one after the other, so the result is one of the requested sets.
  await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, organizationId)).for("update");
  const wanted = [...new Set(methods)];
  const current = new Set((await listMfaMethods(db, organizationId)).map((m) => m.method as string));
  await db
    .delete(organizationMfaMethods)
    .where(
      and(
        eq(organizationMfaMethods.organizationId, organizationId),
        wanted.length > 0 ? notInArray(organizationMfaMethods.method, wanted) : undefined,
      ),
    );
  const added = wanted.filter((m) => !current.has(m));
  if (added.length > 0) {
    await db.insert(organizationMfaMethods).values(added.map((method) => ({ organizationId, method, createdAt: now })));
  }
  if ((current.size === 0) !== (wanted.length === 0)) {
    await db.update(organizations).set({ mfaRequiredSince: wanted.length > 0 ? now : null }).where(eq(organizations.id, organizationId));
  }
  return listMfaMethods(db, organizationId);
}
