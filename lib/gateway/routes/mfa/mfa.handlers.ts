import { auditAs, mutate } from "../../audit";
import { requireOrgMember, requirePermission } from "../../authz";
import { forbidden } from "../../errors";
import { listMfaMethods, setMfaMethods } from "../../store/queries/mfa";
import { enrollmentOf, mfaGraceDays, setMfaGraceDays } from "../../store/queries/mfa-factors";
import type { Database } from "../../store/client";
import type { AppRouteHandler } from "../shared";
import type * as routes from "./mfa.routes";

async function mfaState(db: Database, orgId: string) {
  return { mfa_methods: await listMfaMethods(db, orgId), enrollment_grace_days: await mfaGraceDays(db, orgId), enrollment: await enrollmentOf(db, orgId) };
}

export const getOrganizationMfa: AppRouteHandler<typeof routes.getOrganizationMfa> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  await requireOrgMember(c.get("access"), orgId);
  return c.json(await mfaState(c.get("deps").db, orgId), 200);
};

export const updateOrganizationMfa: AppRouteHandler<typeof routes.updateOrganizationMfa> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  const { intended_methods: methods, enrollment_grace_days: graceDays } = c.req.valid("json");
  const wanted = [...new Set(methods)];
  const grace = graceDays === undefined ? "" : `, enrolment grace ${graceDays} day${graceDays === 1 ? "" : "s"}`;
  const audit = auditAs(c, {
    organizationId: orgId,
    action: "Update",
    actionDetail: (wanted.length ? `Require MFA: ${wanted.join(", ")}` : "Require no MFA") + grace,
    targetType: "OrganizationMFA",
    targetIds: [orgId],
    targetNames: wanted,
  });
  const access = c.get("access");
  await requirePermission(access, orgId, "mfa.manage");
  // Requiring none lets every person, the owners too, sign in with their key alone: as with the other
  // changes that weaken an owner's sign-in (requireOwnerForOwner), only an owner may make it.
  if (wanted.length === 0 && (await access.relation(orgId)) !== "owner" && (await listMfaMethods(c.get("deps").db, orgId)).length > 0) {
    throw forbidden("only an owner of the organization may stop requiring MFA: the owners would sign in without a second factor");
  }
  const result = await mutate(c, audit, async (tx) => {
    await setMfaMethods(tx, orgId, wanted, new Date());
    if (graceDays !== undefined) await setMfaGraceDays(tx, orgId, graceDays);
    return mfaState(tx, orgId);
  });
  return c.json(result, 200);
};
