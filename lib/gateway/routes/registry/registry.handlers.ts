import { auditAs, mutate } from "../../audit";
import { hashSecret, newSecret } from "../../crypto";
import { badRequest } from "../../errors";
import { listRegistryLocations, listRegistryProviders } from "../../store/queries/catalog";
import { holdActiveMembership } from "../../store/queries/access";
import { firstOrganization } from "../../store/queries/first-organization";
import { insertRegistryToken } from "../../store/queries/registry";
import type { AppRouteHandler } from "../shared";
import type * as routes from "./registry.routes";

export const listSupportedLocations: AppRouteHandler<typeof routes.listSupportedLocations> = async (c) => {
  return c.json({ items: await listRegistryLocations(c.get("deps").db) }, 200);
};

export const listSupportedProviders: AppRouteHandler<typeof routes.listSupportedProviders> = async (c) => {
  return c.json({ items: await listRegistryProviders(c.get("deps").db) }, 200);
};

export const createCcrToken: AppRouteHandler<typeof routes.createCcrToken> = async (c) => {
  const body = c.req.valid("json");
  const caller = c.get("caller");
  const { db } = c.get("deps");
  // The operation names no organization, so the token belongs to the caller's first one.
  const organizationId = await firstOrganization(db, caller);
  const audit = auditAs(c, {
    organizationId,
    action: "Create",
    actionDetail: "Create Container Registry Token",
    targetType: "CCRToken",
    targetNames: body.alias ? [body.alias] : [],
  });
  // Declared statuses have no 403: a caller without an organization sent a request that cannot succeed.
  const noOrganization = () => badRequest("caller", "belongs to no organization that could own the token");
  if (!organizationId) throw noOrganization();
  const token = `ccr_${newSecret()}`;
  await mutate(c, { ...audit, organizationId }, async (tx, meta) => {
    // The membership held until the token is stored: a removal or suspension under way (which ends the person's
    // tokens) is waited for, and then refuses this one.
    if (!(await holdActiveMembership(tx, organizationId, caller.userId))) throw noOrganization();
    const id = await insertRegistryToken(tx, {
      organizationId,
      userId: caller.userId,
      alias: body.alias ?? "",
      tokenHash: hashSecret(token),
      expiresAt: body.expires_at ? new Date(body.expires_at) : null,
    });
    meta.targetIds = [id];
  });
  return c.json({ token }, 200);
};
