import { requireOrgOwner } from "../../authz";
import { auditAs, mutate } from "../../audit";
import { forbidden } from "../../errors";
import { holdActiveRelation } from "../../store/queries/access";
import { evaluateFlags } from "../../store/queries/flags";
import { listMfaMethods, mfaMethodsByOrganization } from "../../store/queries/mfa";
import { listActiveOrganizations, toEntity, updateOrganization as updateOrg } from "../../store/queries/organizations";
import { jsonTextAnswer, toJsonText, type AppRouteHandler } from "../shared";
import type * as routes from "./organizations.routes";

export const getOrganizations: AppRouteHandler<typeof routes.getOrganizations> = async (c) => {
  const { db, reads } = c.get("deps");
  const caller = c.get("caller");
  const access = c.get("access");
  // Every page of the console asks for it. What one caller sees is the same until the store changes
  // (each table read here sends change notices): kept as the answer's text, per account and the
  // organization its key acts in (a key minted for an SSO session sees that organization only).
  const body = await reads.get(`entities:${caller.userId}:${caller.organizationId ?? ""}`, async () => {
    const rows = await listActiveOrganizations(db, caller);
    const mfa = await mfaMethodsByOrganization(db, rows.map((r) => r.org.id));
    const items = await Promise.all(
      rows.map(async ({ org, relation }) =>
        toEntity(
          org,
          relation,
          await evaluateFlags(db, { userId: caller.userId, organizationId: org.id }),
          mfa.get(org.id),
          await access.permissions(org.id),
        ),
      ),
    );
    return toJsonText({ items });
  });
  // The same text c.json would send; its type names features a plain record where the route's JSON type does not.
  return jsonTextAnswer(c, body) as never;
};

export const updateOrganization: AppRouteHandler<typeof routes.updateOrganization> = async (c) => {
  const { org_id: orgId } = c.req.valid("query");
  const body = c.req.valid("json");
  const caller = c.get("caller");
  const audit = auditAs(c, {
    organizationId: orgId,
    action: "Update",
    actionDetail: "Update Organization",
    targetType: "Organization",
    targetIds: [orgId],
  });
  await requireOrgOwner(c.get("access"), orgId);
  // What the answer reads is read in the change's transaction (the permissions, which the change leaves as they
  // are, before it): a failure after the commit would answer 5xx for a change made, and the client's retry of the
  // same signed call is then refused as a replay.
  const permissions = await c.get("access").permissions(orgId);
  const entity = await mutate(c, audit, async (tx, meta) => {
    // Still an owner as the change is made: a removal or demotion of the caller committed since the check above is
    // waited for and seen (the change would otherwise be made, and audited, as an owner's by someone no longer one).
    if ((await holdActiveRelation(tx, orgId, caller.userId)) !== "owner") throw forbidden("only an owner of the organization may do this");
    const updated = await updateOrg(tx, orgId, body);
    if (!updated) throw new Error("organization vanished during update");
    meta.targetNames = [updated.name];
    const features = await evaluateFlags(tx, { userId: caller.userId, organizationId: orgId });
    return toEntity(updated, "owner", features, await listMfaMethods(tx, orgId), permissions);
  });
  return c.json({ entity }, 200);
};
