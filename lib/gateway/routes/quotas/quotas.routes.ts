import { createRoute } from "@hono/zod-openapi";
import { listOrgQuotasResponseSchema } from "@/lib/contract/quotas";
import { organizationPathSchema } from "@/lib/contract/usage";
import { errors, json, operation } from "../shared";

export const listOrgQuotas = createRoute({
  ...operation("listOrgQuotas"),
  tags: ["Quotas"],
  summary: "List max and currently used organization quotas.",
  description: "Used is counted from the organization's live resources at the time of the call.",
  request: { params: organizationPathSchema },
  responses: { 200: json(listOrgQuotasResponseSchema, "quotas"), ...errors(400, 401, 403, 500) },
});
