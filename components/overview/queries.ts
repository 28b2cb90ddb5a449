import type { z } from "zod";
import type { auditLogsGetResponseSchema } from "@/lib/contract/audit-logs";
import type { billingCostDataSchema } from "@/lib/contract/billing";
import type { listOrgQuotasResponseSchema } from "@/lib/contract/quotas";
import type { reservationsGetResponseSchema } from "@/lib/contract/reservations";
import { gatewayQuery, gatewaySummaryQuery } from "@/lib/query/gateway-query";
import { auditKeys, billingKeys, quotaKeys, reservationKeys } from "@/lib/query/keys";
import { projectQueries } from "@/lib/query/projects";
import { reservationQueries } from "@/lib/query/reservations";
import { compareCodeUnits } from "@/lib/compare";
import { operationPath } from "@/lib/contract/operations";

/** The overview's widgets; the server prefetches each by its path, the browser reads it by its key. */
export function overviewQueries(orgId: string, today = new Date()) {
  const end = today.toISOString().slice(0, 10);
  const start = `${end.slice(0, 8)}01`;
  return {
    projects: projectQueries.list(),
    spend: gatewaySummaryQuery(
      [...billingKeys.costs(orgId, { start_date: start, end_date: end }), "daily-totals"] as const,
      operationPath("getBillingCosts", { organization_id: orgId }),
      { start_date: start, end_date: end },
      dailySpend,
    ),
    quotas: gatewayQuery<z.infer<typeof listOrgQuotasResponseSchema>, ReturnType<typeof quotaKeys.org>>(quotaKeys.org(orgId), operationPath("listOrgQuotas", { organization_id: orgId })),
    audit: gatewayQuery<z.infer<typeof auditLogsGetResponseSchema>, ReturnType<typeof auditKeys.search>>(
      auditKeys.search(orgId, { limit: "6" }),
      operationPath("getAuditLogs", { organization_id: orgId }),
      { limit: "6" },
    ),
    reservations: gatewayQuery<z.infer<typeof reservationsGetResponseSchema>, ReturnType<typeof reservationKeys.list>>(
      reservationKeys.list(orgId),
      operationPath("getReservations", { organization_id: orgId }),
    ),
    effectiveReservations: reservationQueries.list(orgId, "effective"),
  };
}

export interface DailySpend {
  /** Each day with spend, in order, in integer cents. */
  days: Array<{ date: string; cents: number }>;
  totalCents: number;
}

/** Daily totals of the gateway's cost rows, summed in integer cents: never add floats of money directly. */
export function dailySpend(answer: z.infer<typeof billingCostDataSchema>): DailySpend {
  const byDay = new Map<string, number>();
  for (const d of answer.data) byDay.set(d.date, (byDay.get(d.date) ?? 0) + Math.round((d.cost ?? 0) * 100));
  const days = [...byDay.entries()].sort(([a], [b]) => compareCodeUnits(a, b)).map(([date, cents]) => ({ date, cents }));
  return { days, totalCents: days.reduce((sum, d) => sum + d.cents, 0) };
}
