import { requireOrgMember } from "../../authz";
import { listQuotas } from "../../store/queries/quotas";
import type { AppRouteHandler } from "../shared";
import type * as routes from "./quotas.routes";

export const listOrgQuotas: AppRouteHandler<typeof routes.listOrgQuotas> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  await requireOrgMember(c.get("access"), orgId);
  return c.json({ quotas: await listQuotas(c.get("deps").db, orgId) }, 200);
};
