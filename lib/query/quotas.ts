import type { z } from "zod";
import type { listOrgQuotasResponseSchema } from "@/lib/contract/quotas";
import { gatewayQuery } from "./gateway-query";
import { quotaKeys } from "./keys";
import { operationPath } from "@/lib/contract/operations";

export type ListOrgQuotasResponse = z.infer<typeof listOrgQuotasResponseSchema>;
export type OrgQuota = ListOrgQuotasResponse["quotas"][number];

export const quotaQueries = {
  /** GET …/quotas: the maximum and current use of each organization quota. */
  org: (orgId: string) =>
    gatewayQuery<ListOrgQuotasResponse, ReturnType<typeof quotaKeys.org>>(quotaKeys.org(orgId), operationPath("listOrgQuotas", { organization_id: orgId })),
};

export type QuotaLevel = "ok" | "near" | "critical" | "none";

/** Warnings near the limit: 80 % and more is near it, 95 % and more is at it; a maximum of 0 grants nothing. */
export function quotaLevel(q: Pick<OrgQuota, "used" | "max">): QuotaLevel {
  if (q.max <= 0) return q.used > 0 ? "critical" : "none";
  const ratio = q.used / q.max;
  if (ratio >= 0.95) return "critical";
  if (ratio >= 0.8) return "near";
  return "ok";
}
