import { auditAs, mutate } from "../../audit";
import { holdCallerMembership, requireOrgMember, requirePermission } from "../../authz";
import { hashSecret, newSecret } from "../../crypto";
import { badRequest, notFound } from "../../errors";
import { holdProjects, projectExistsIn, rolesByIds } from "../../store/queries/iam";
import {
  describeBindingChanges,
  groupBindingDiff,
  listGroupMappings,
  lockScimIntegration,
  replaceGroupMappings,
  syncGroupBindings,
  type MappingInput,
} from "../../store/queries/scim-group-bindings";
import { integrationCounts, provisionedGroups, provisionedPeople } from "../../store/queries/scim-service";
import type { Database } from "../../store/client";
import {
  deleteScimIntegrationRow,
  deleteScimTokenRow,
  findScimIntegration,
  holdScimIntegration,
  insertScimIntegration,
  insertScimToken,
  listScimIntegrations as listIntegrationRows,
  listScimTokens,
  scimIntegrationWithTokens,
  toScimIntegration,
  TOKEN_KEY_ID,
  updateScimIntegrationRow,
} from "../../store/queries/scim";
import type { AppRouteHandler } from "../shared";
import type * as routes from "./scim.routes";

const integrationNotFound = () => notFound("SCIM integration not found in this organization");
const tokenNotFound = () => notFound("SCIM token not found in this integration");

async function existingIntegration(db: Database, orgId: string, integrationId: string) {
  const row = await findScimIntegration(db, orgId, integrationId);
  if (!row) throw integrationNotFound();
  return row;
}

/** A token secret with a recognizable prefix, so secret scanners can spot a leaked one. */
function newTokenSecret(): { secret: string; secretHash: string } {
  const secret = `scim_${newSecret()}`;
  return { secret, secretHash: hashSecret(secret) };
}

export const listScimIntegrations: AppRouteHandler<typeof routes.listScimIntegrations> = async (c) => {
  const { org_id: orgId } = c.req.valid("param");
  await requireOrgMember(c.get("access"), orgId);
  return c.json({ integrations: await listIntegrationRows(c.get("deps").db, orgId) }, 200);
};

export const createScimIntegration: AppRouteHandler<typeof routes.createScimIntegration> = async (c) => {
  const { org_id: orgId } = c.req.valid("param");
  const body = c.req.valid("json");
  const caller = c.get("caller");
  const audit = auditAs(c, {
    organizationId: orgId,
    action: "Create",
    actionDetail: "Create SCIM Integration",
    targetType: "SCIMIntegration",
    targetNames: [body.name],
  });
  await requirePermission(c.get("access"), orgId, "scim.manage");
  const token = body.token ? { ...body.token, ...newTokenSecret() } : undefined;
  const now = new Date();
  const created = await mutate(c, audit, async (tx, meta) => {
    if (token) await holdCallerMembership(tx, orgId, caller.userId, "scim.manage");
    const row = await insertScimIntegration(tx, { organizationId: orgId, name: body.name, identityProvider: body.identity_provider, createdBy: caller.userId, now });
    meta.targetIds = [row.id];
    const apiKeyInfo = token
      ? await insertScimToken(tx, {
          organizationId: orgId,
          integrationId: row.id,
          alias: token.alias,
          expiresAt: new Date(token.expires_at),
          userId: caller.userId,
          secret: token.secret,
          secretHash: token.secretHash,
          now,
        })
      : undefined;
    return { row, apiKeyInfo };
  });
  const integration = toScimIntegration(created.row, created.apiKeyInfo ? [created.apiKeyInfo.key_id] : []);
  return c.json({ integration, ...(created.apiKeyInfo ? { api_key_info: created.apiKeyInfo } : {}) }, 200);
};

export const getScimIntegration: AppRouteHandler<typeof routes.getScimIntegration> = async (c) => {
  const { org_id: orgId, integration_id: integrationId } = c.req.valid("param");
  const { db } = c.get("deps");
  await requireOrgMember(c.get("access"), orgId);
  return c.json(await scimIntegrationWithTokens(db, await existingIntegration(db, orgId, integrationId)), 200);
};

export const updateScimIntegration: AppRouteHandler<typeof routes.updateScimIntegration> = async (c) => {
  const { org_id: orgId, integration_id: integrationId } = c.req.valid("param");
  const body = c.req.valid("json");
  const { db } = c.get("deps");
  const audit = auditAs(c, {
    organizationId: orgId,
    action: "Update",
    actionDetail: body.status ? `Set SCIM Integration ${body.status}` : "Update SCIM Integration",
    targetType: "SCIMIntegration",
    targetIds: [integrationId],
  });
  await requirePermission(c.get("access"), orgId, "scim.manage");
  const existing = await existingIntegration(db, orgId, integrationId);
  audit.targetNames = [existing.name];
  const updated = await mutate(c, audit, async (tx) => {
    const row = await updateScimIntegrationRow(tx, orgId, existing.id, { status: body.status });
    if (!row) throw integrationNotFound();
    // Read in the change's transaction: a failure after the commit would answer 5xx for a change made.
    return scimIntegrationWithTokens(tx, row);
  });
  return c.json(updated, 200);
};

export const deleteScimIntegration: AppRouteHandler<typeof routes.deleteScimIntegration> = async (c) => {
  const { org_id: orgId, integration_id: integrationId } = c.req.valid("param");
  const { db } = c.get("deps");
  const audit = auditAs(c, {
    organizationId: orgId,
    action: "Delete",
    actionDetail: "Delete SCIM Integration",
    targetType: "SCIMIntegration",
    targetIds: [integrationId],
  });
  await requirePermission(c.get("access"), orgId, "scim.manage");
  const existing = await existingIntegration(db, orgId, integrationId);
  audit.targetNames = [existing.name];
  await mutate(c, audit, async (tx) => {
    if (!(await deleteScimIntegrationRow(tx, orgId, existing.id))) throw integrationNotFound();
  });
  return c.body(null, 204);
};

export const listScimIntegrationTokens: AppRouteHandler<typeof routes.listScimIntegrationTokens> = async (c) => {
  const { org_id: orgId, integration_id: integrationId } = c.req.valid("param");
  const { db } = c.get("deps");
  await requireOrgMember(c.get("access"), orgId);
  const integration = await existingIntegration(db, orgId, integrationId);
  return c.json({ items: await listScimTokens(db, orgId, integration.id) }, 200);
};

export const createScimIntegrationToken: AppRouteHandler<typeof routes.createScimIntegrationToken> = async (c) => {
  const { org_id: orgId, integration_id: integrationId } = c.req.valid("param");
  const body = c.req.valid("json");
  const { db } = c.get("deps");
  const caller = c.get("caller");
  const audit = auditAs(c, {
    organizationId: orgId,
    action: "Create",
    actionDetail: "Create SCIM Token",
    targetType: "SCIMToken",
    targetNames: [body.alias],
  });
  await requirePermission(c.get("access"), orgId, "scim.manage");
  const integration = await existingIntegration(db, orgId, integrationId);
  const { secret, secretHash } = newTokenSecret();
  const apiKeyInfo = await mutate(c, audit, async (tx, meta) => {
    if (!(await holdScimIntegration(tx, orgId, integration.id))) throw integrationNotFound();
    await holdCallerMembership(tx, orgId, caller.userId, "scim.manage");
    const info = await insertScimToken(tx, {
      organizationId: orgId,
      integrationId: integration.id,
      alias: body.alias,
      expiresAt: new Date(body.expires_at),
      userId: caller.userId,
      secret,
      secretHash,
      now: new Date(),
    });
    meta.targetIds = [info.key_id];
    return info;
  });
  return c.json({ api_key_info: apiKeyInfo }, 200);
};

export const deleteScimIntegrationToken: AppRouteHandler<typeof routes.deleteScimIntegrationToken> = async (c) => {
  const { org_id: orgId, integration_id: integrationId, access_key_id: keyId } = c.req.valid("param");
  const { db } = c.get("deps");
  const audit = auditAs(c, {
    organizationId: orgId,
    action: "Delete",
    actionDetail: "Delete SCIM Token",
    targetType: "SCIMToken",
    targetIds: [keyId],
  });
  await requirePermission(c.get("access"), orgId, "scim.manage");
  const integration = await existingIntegration(db, orgId, integrationId);
  if (!TOKEN_KEY_ID.test(keyId)) throw tokenNotFound();
  await mutate(c, audit, async (tx, meta) => {
    const alias = await deleteScimTokenRow(tx, orgId, integration.id, keyId);
    if (alias === undefined) throw tokenNotFound();
    meta.targetNames = [alias];
  });
  return c.body(null, 204);
};

async function checkMappings(db: Database, orgId: string, mappings: MappingInput[]): Promise<void> {
  const seen = new Set<string>();
  for (const [index, m] of mappings.entries()) {
    const at = `body.mappings[${index}]`;
    const role = (await rolesByIds(db, [m.role_id])).get(m.role_id);
    if (!role || role.organizationId !== orgId) throw badRequest(`${at}.role_id`, `role ${m.role_id} not found in this organization`);
    if (!role.allowedScopes.includes(m.scope_type)) {
      throw badRequest(`${at}.scope_type`, `role ${role.roleName} cannot be bound at ${m.scope_type} scope (allowed: ${role.allowedScopes.join(", ")})`);
    }
    if (m.scope_type === "org" && m.scope_object_id !== orgId) throw badRequest(`${at}.scope_object_id`, `organization ${m.scope_object_id} is not this organization`);
    if (m.scope_type === "project" && !(await projectExistsIn(db, m.scope_object_id, [orgId]))) throw badRequest(`${at}.scope_object_id`, `project ${m.scope_object_id} not found`);
    const key = `${m.group_display_name.toLowerCase()}|${m.role_id}|${m.scope_type}|${m.scope_object_id}`;
    if (seen.has(key)) throw badRequest(at, "the same mapping is listed twice");
    seen.add(key);
  }
}

export const getScimGroupMappings: AppRouteHandler<typeof routes.getScimGroupMappings> = async (c) => {
  const { org_id: orgId, integration_id: integrationId } = c.req.valid("param");
  const { db } = c.get("deps");
  await requirePermission(c.get("access"), orgId, "scim.manage");
  const integration = await existingIntegration(db, orgId, integrationId);
  return c.json({ mappings: await listGroupMappings(db, integration.id) }, 200);
};

export const putScimGroupMappings: AppRouteHandler<typeof routes.putScimGroupMappings> = async (c) => {
  const { org_id: orgId, integration_id: integrationId } = c.req.valid("param");
  const { dry_run: dryRun } = c.req.valid("query");
  const body = c.req.valid("json");
  const { db } = c.get("deps");
  const audit = auditAs(c, {
    organizationId: orgId,
    action: "Update",
    actionDetail: "Update SCIM Group Mappings",
    targetType: "SCIMIntegration",
    targetIds: [integrationId],
  });
  await requirePermission(c.get("access"), orgId, "scim.manage");
  const integration = await existingIntegration(db, orgId, integrationId);
  audit.targetNames = [integration.name];
  await checkMappings(db, orgId, body.mappings);
  if (dryRun === "true") {
    const diff = await groupBindingDiff(db, integration.id, "all", body.mappings);
    const roleNames = await rolesByIds(db, [...new Set(body.mappings.map((m) => m.role_id))]);
    return c.json(
      {
        mappings: body.mappings.map((m) => ({ ...m, role_name: roleNames.get(m.role_id)?.roleName ?? "" })),
        bindings_to_create: await describeBindingChanges(db, diff.create),
        bindings_to_remove: await describeBindingChanges(db, diff.remove),
      },
      200,
    );
  }
  const result = await mutate(c, audit, async (tx) => {
    if (!(await lockScimIntegration(tx, integration.id))) throw integrationNotFound();
    // A project deleted since checkMappings is refused, not mapped (a mapping has no foreign key to it).
    const onProjects = body.mappings.map((m, index) => ({ m, index })).filter(({ m }) => m.scope_type === "project");
    const held = await holdProjects(tx, onProjects.map(({ m }) => m.scope_object_id));
    const gone = onProjects.find(({ m }) => !held.has(m.scope_object_id));
    if (gone) throw badRequest(`body.mappings[${gone.index}].scope_object_id`, `project ${gone.m.scope_object_id} not found`);
    const diff = await groupBindingDiff(tx, integration.id, "all", body.mappings);
    await replaceGroupMappings(tx, orgId, integration.id, body.mappings);
    await syncGroupBindings(tx, orgId, integration.id, "all");
    return {
      mappings: await listGroupMappings(tx, integration.id),
      bindings_to_create: await describeBindingChanges(tx, diff.create),
      bindings_to_remove: await describeBindingChanges(tx, diff.remove),
    };
  });
  return c.json(result, 200);
};

export const getScimIntegrationProvisioned: AppRouteHandler<typeof routes.getScimIntegrationProvisioned> = async (c) => {
  const { org_id: orgId, integration_id: integrationId } = c.req.valid("param");
  const { db } = c.get("deps");
  await requirePermission(c.get("access"), orgId, "scim.manage");
  const integration = await existingIntegration(db, orgId, integrationId);
  const counts = (await integrationCounts(db, [integration.id])).get(integration.id) ?? { users: 0, groups: 0 };
  const people = await provisionedPeople(db, orgId, integration.id, 200);
  const groups = await provisionedGroups(db, integration.id, 200);
  return c.json(
    {
      user_count: counts.users,
      group_count: counts.groups,
      users: people.map((p) => ({ ...p, updated_at: p.updated_at.toISOString() })),
      groups: groups.map((g) => ({ ...g, external_id: g.external_id ?? "", member_count: Number(g.member_count), updated_at: g.updated_at.toISOString() })),
    },
    200,
  );
};
