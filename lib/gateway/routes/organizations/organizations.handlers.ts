import { PERMISSIONS, requireOrgOwner, type Access } from "../../authz";
import { auditAs, mutate } from "../../audit";
import { evaluateFlags } from "../../store/queries/flags";
import { listMfaMethods, mfaMethodsByOrganization } from "../../store/queries/mfa";
import { listActiveOrganizations, toEntity, updateOrganization as updateOrg } from "../../store/queries/organizations";
import type { AppRouteHandler } from "../shared";
import type * as routes from "./organizations.routes";

/** The permissions the caller holds across the organization (org-scope bindings). */
async function orgPermissions(access: Access, orgId: string): Promise<string[]> {
  const held = await Promise.all(PERMISSIONS.map((p) => access.can(orgId, p)));
  return PERMISSIONS.filter((_, i) => held[i]);
}

export const getOrganizations: AppRouteHandler<typeof routes.getOrganizations> = async (c) => {
  const { db } = c.get("deps");
  const caller = c.get("caller");
  const rows = await listActiveOrganizations(db, caller);
  const mfa = await mfaMethodsByOrganization(db, rows.map((r) => r.org.id));
  const items = await Promise.all(
    rows.map(async ({ org, relation }) =>
      toEntity(
        org,
        relation,
        await evaluateFlags(db, { userId: caller.userId, organizationId: org.id }),
        mfa.get(org.id),
        await orgPermissions(c.get("access"), org.id),
      ),
    ),
  );
  return c.json({ items }, 200);
};

export const updateOrganization: AppRouteHandler<typeof routes.updateOrganization> = async (c) => {
  const { org_id: orgId } = c.req.valid("query");
  const body = c.req.valid("json");
  const { db } = c.get("deps");
  const caller = c.get("caller");
  const audit = auditAs(c, {
    organizationId: orgId,
    action: "Update",
    actionDetail: "Update Organization",
    targetType: "Organization",
    targetIds: [orgId],
  });
  await requireOrgOwner(c.get("access"), orgId);
  const org = await mutate(c, audit, async (tx, meta) => {
    const updated = await updateOrg(tx, orgId, body);
    if (!updated) throw new Error("organization vanished during update");
    meta.targetNames = [updated.name];
    return updated;
  });
  const features = await evaluateFlags(db, { userId: caller.userId, organizationId: orgId });
  return c.json({ entity: toEntity(org, "owner", features, await listMfaMethods(db, orgId), await orgPermissions(c.get("access"), orgId)) }, 200);
};
