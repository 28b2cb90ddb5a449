import { requirePermission } from "../../authz";
import { listQuotas } from "../../store/queries/quotas";
import type { AppRouteHandler } from "../shared";
import type * as routes from "./quotas.routes";

export const listOrgQuotas: AppRouteHandler<typeof routes.listOrgQuotas> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  await requirePermission(c.get("access"), orgId, "billing.read");
  return c.json({ quotas: await listQuotas(c.get("deps").db, orgId) }, 200);
};
