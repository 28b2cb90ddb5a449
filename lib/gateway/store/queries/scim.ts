import { randomBytes, randomUUID } from "node:crypto";
import { and, asc, eq, inArray } from "drizzle-orm";
import { SCIM_TOKEN_USAGE, type GeneratedLimitedUsageApiKey, type ScimIntegration, type ScimTokenInfo } from "@/lib/contract/scim";
import type { Database } from "../client";
import { memberships, scimGroupMembers, scimGroups, scimIntegrations, scimTokens } from "../schema";
import { lockScimIntegration } from "./scim-group-bindings";
import { deleteGroupGrantedBindings, integrationCounts } from "./scim-service";

export type ScimIntegrationRow = typeof scimIntegrations.$inferSelect;
export type ScimTokenRow = typeof scimTokens.$inferSelect;

/** Integration ids are UUIDs; token key ids are 22 characters of URL-safe base64. */
export const INTEGRATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const TOKEN_KEY_ID = /^[A-Za-z0-9_-]{22}$/;

/** `userCount`: the people the integration provisioned or matched, computed (the stored column is not read). */
export function toScimIntegration(row: ScimIntegrationRow, tokenIds: string[], userCount = 0): ScimIntegration {
  return {
    id: row.id,
    organization_id: row.organizationId,
    name: row.name,
    identity_provider: row.identityProvider,
    token_ids: tokenIds,
    status: row.status,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    created_by: row.createdBy,
    ...(row.lastActivityAt ? { last_activity_at: row.lastActivityAt.toISOString() } : {}),
    user_count: userCount,
  };
}

export function toScimTokenInfo(row: ScimTokenRow): ScimTokenInfo {
  return {
    usage: SCIM_TOKEN_USAGE,
    key_id: row.id,
    alias: row.alias,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    last_used: row.lastUsedAt ? row.lastUsedAt.toISOString() : "",
    user_id: row.userId,
  };
}

/** Token key ids per integration, oldest first. */
async function tokenIdsOf(db: Database, organizationId: string, integrationIds: string[]): Promise<Map<string, string[]>> {
  const byIntegration = new Map<string, string[]>(integrationIds.map((id) => [id, []]));
  if (integrationIds.length === 0) return byIntegration;
  const rows = await db
    .select({ id: scimTokens.id, integrationId: scimTokens.integrationId })
    .from(scimTokens)
    .where(and(eq(scimTokens.organizationId, organizationId), inArray(scimTokens.integrationId, integrationIds)))
    .orderBy(asc(scimTokens.createdAt), asc(scimTokens.id));
  for (const row of rows) byIntegration.get(row.integrationId)?.push(row.id);
  return byIntegration;
}

export async function listScimIntegrations(db: Database, organizationId: string): Promise<ScimIntegration[]> {
  const rows = await db
    .select()
    .from(scimIntegrations)
    .where(eq(scimIntegrations.organizationId, organizationId))
    .orderBy(asc(scimIntegrations.createdAt), asc(scimIntegrations.id));
  const tokens = await tokenIdsOf(db, organizationId, rows.map((r) => r.id));
  const counts = await integrationCounts(db, rows.map((r) => r.id));
  return rows.map((row) => toScimIntegration(row, tokens.get(row.id) ?? [], counts.get(row.id)?.users ?? 0));
}

export async function findScimIntegration(db: Database, organizationId: string, integrationId: string): Promise<ScimIntegrationRow | undefined> {
  if (!INTEGRATION_ID.test(integrationId)) return undefined;
  const [row] = await db
    .select()
    .from(scimIntegrations)
    .where(and(eq(scimIntegrations.organizationId, organizationId), eq(scimIntegrations.id, integrationId)));
  return row;
}

export async function scimIntegrationWithTokens(db: Database, row: ScimIntegrationRow): Promise<ScimIntegration> {
  const tokens = await tokenIdsOf(db, row.organizationId, [row.id]);
  const counts = await integrationCounts(db, [row.id]);
  return toScimIntegration(row, tokens.get(row.id) ?? [], counts.get(row.id)?.users ?? 0);
}

export async function listScimTokens(db: Database, organizationId: string, integrationId: string): Promise<ScimTokenInfo[]> {
  const rows = await db
    .select()
    .from(scimTokens)
    .where(and(eq(scimTokens.organizationId, organizationId), eq(scimTokens.integrationId, integrationId)))
    .orderBy(asc(scimTokens.createdAt), asc(scimTokens.id));
  return rows.map(toScimTokenInfo);
}

/** Stores a token (only the hash of its secret) and returns what the create response shows, secret included. */
export async function insertScimToken(
  db: Database,
  input: { organizationId: string; integrationId: string; alias: string; expiresAt: Date; userId: string; secret: string; secretHash: string; now: Date },
): Promise<GeneratedLimitedUsageApiKey> {
  const [row] = await db
    .insert(scimTokens)
    .values({
      id: randomBytes(16).toString("base64url"),
      organizationId: input.organizationId,
      integrationId: input.integrationId,
      alias: input.alias,
      secretHash: input.secretHash,
      userId: input.userId,
      createdAt: input.now,
      expiresAt: input.expiresAt,
    })
    .returning();
  if (!row) throw new Error("token insert returned nothing");
  return { usage: SCIM_TOKEN_USAGE, key_id: row.id, api_key: input.secret, alias: row.alias, created_at: row.createdAt.toISOString(), expires_at: row.expiresAt.toISOString() };
}

export async function insertScimIntegration(
  tx: Database,
  i: { organizationId: string; name: string; identityProvider: string; createdBy: string; now: Date },
): Promise<ScimIntegrationRow> {
  const [row] = await tx
    .insert(scimIntegrations)
    .values({
      id: randomUUID(),
      organizationId: i.organizationId,
      name: i.name,
      identityProvider: i.identityProvider,
      createdBy: i.createdBy,
      createdAt: i.now,
      updatedAt: i.now,
    })
    .returning();
  if (!row) throw new Error("integration insert returned nothing");
  return row;
}

/** The updated integration, or undefined when it is gone. */
export async function updateScimIntegrationRow(
  tx: Database,
  orgId: string,
  integrationId: string,
  change: { status?: ScimIntegrationRow["status"] },
): Promise<ScimIntegrationRow | undefined> {
  const [row] = await tx
    .update(scimIntegrations)
    .set({ ...(change.status ? { status: change.status } : {}), updatedAt: new Date() })
    .where(and(eq(scimIntegrations.organizationId, orgId), eq(scimIntegrations.id, integrationId)))
    .returning();
  return row;
}

/**
 * Whether the integration is there, held (FOR KEY SHARE) until the caller's transaction ends: a token
 * made for it waits for a deletion of it in flight (then finds none), and the deletion for the token.
 * Taken before the maker's membership and account, which the deletion takes after the integration.
 */
export async function holdScimIntegration(tx: Database, orgId: string, integrationId: string): Promise<boolean> {
  const held = await tx
    .select({ id: scimIntegrations.id })
    .from(scimIntegrations)
    .where(and(eq(scimIntegrations.organizationId, orgId), eq(scimIntegrations.id, integrationId)))
    .for("key share");
  return held.length > 0;
}

/**
 * Deletes an integration with its tokens, groups and mappings (foreign-key cascade) and the role
 * bindings its groups granted (which no foreign key reaches); false when it was already gone.
 */
export async function deleteScimIntegrationRow(tx: Database, orgId: string, integrationId: string): Promise<boolean> {
  // Held first, so no group is created meanwhile (its insert waits for the integration's row); each
  // group's delete waits for a change of it in flight, so the bindings that change granted are there to delete.
  await lockScimIntegration(tx, integrationId);
  const ofIntegration = and(eq(scimGroups.organizationId, orgId), eq(scimGroups.integrationId, integrationId));
  // Then its groups, so no change of their members is in flight or starts, and the memberships of the people in
  // them (in one order), before any group's members go: a removal takes the person's membership before their
  // group memberships, and deleting the groups here the other way round could take one group's row of the person
  // while the removal took another's, each then waiting for the other.
  await tx.select({ id: scimGroups.id }).from(scimGroups).where(ofIntegration).orderBy(asc(scimGroups.id)).for("update");
  const inGroups = tx
    .select({ userId: scimGroupMembers.userId })
    .from(scimGroupMembers)
    .innerJoin(scimGroups, eq(scimGroups.id, scimGroupMembers.groupId))
    .where(eq(scimGroups.integrationId, integrationId));
  await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.organizationId, orgId), inArray(memberships.userId, inGroups)))
    .orderBy(asc(memberships.userId))
    .for("share");
  const groups = await tx
    .delete(scimGroups)
    .where(ofIntegration)
    .returning({ id: scimGroups.id });
  await deleteGroupGrantedBindings(tx, groups.map((g) => g.id));
  const gone = await tx
    .delete(scimIntegrations)
    .where(and(eq(scimIntegrations.organizationId, orgId), eq(scimIntegrations.id, integrationId)))
    .returning({ id: scimIntegrations.id });
  return gone.length > 0;
}

/** The deleted token's alias, or undefined when it was not a token of this integration. */
export async function deleteScimTokenRow(tx: Database, orgId: string, integrationId: string, keyId: string): Promise<string | undefined> {
  const [gone] = await tx
    .delete(scimTokens)
    .where(and(eq(scimTokens.organizationId, orgId), eq(scimTokens.integrationId, integrationId), eq(scimTokens.id, keyId)))
    .returning({ alias: scimTokens.alias });
  return gone?.alias;
}
