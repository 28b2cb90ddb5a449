import { auditAs, mutate } from "../../audit";
import { requireOrgMember, requirePermission } from "../../authz";
import { listMfaMethods, setMfaMethods } from "../../store/queries/mfa";
import type { AppRouteHandler } from "../shared";
import type * as routes from "./mfa.routes";

export const getOrganizationMfa: AppRouteHandler<typeof routes.getOrganizationMfa> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  await requireOrgMember(c.get("access"), orgId);
  return c.json({ mfa_methods: await listMfaMethods(c.get("deps").db, orgId) }, 200);
};

export const updateOrganizationMfa: AppRouteHandler<typeof routes.updateOrganizationMfa> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  const { intended_methods: methods } = c.req.valid("json");
  const wanted = [...new Set(methods)];
  const audit = auditAs(c, {
    organizationId: orgId,
    action: "Update",
    actionDetail: wanted.length ? `Require MFA: ${wanted.join(", ")}` : "Require no MFA",
    targetType: "OrganizationMFA",
    targetIds: [orgId],
    targetNames: wanted,
  });
  await requirePermission(c.get("access"), orgId, "mfa.manage");
  const result = await mutate(c, audit, (tx) => setMfaMethods(tx, orgId, wanted, new Date()));
  return c.json({ mfa_methods: result }, 200);
};
