import type { BillingCostData } from "@/lib/query/billing";
import { toCents } from "./money";
import { compareCodeUnits } from "@/lib/compare";

export type CostDatum = BillingCostData["data"][number];

export interface CostFilters {
  projects: string[];
  resource_types: string[];
  regions: string[];
}

/** Keeps the rows every non-empty filter lists (an empty filter keeps all). */
export function filterCosts(data: CostDatum[], f: CostFilters): CostDatum[] {
  const keep = (list: string[], v: string) => list.length === 0 || list.includes(v);
  return data.filter((d) => keep(f.projects, d.project_id) && keep(f.resource_types, d.resource_type) && keep(f.regions, d.region));
}

export interface Total {
  key: string;
  cents: number;
  /** Summed quantity and its unit, when every row of the group has the same unit. */
  quantity?: number;
  metric?: string;
}

/** Spend in integer cents grouped by a field, largest first. */
export function totalsBy(data: CostDatum[], field: "project_id" | "resource_type" | "region"): Total[] {
  const groups = new Map<string, Total & { metrics: Set<string> }>();
  for (const d of data) {
    const key = d[field];
    const g = groups.get(key) ?? { key, cents: 0, quantity: 0, metrics: new Set<string>() };
    g.cents += toCents(d.cost);
    g.quantity = (g.quantity ?? 0) + d.quantity;
    g.metrics.add(d.billable_metric);
    groups.set(key, g);
  }
  return [...groups.values()]
    .map(({ metrics, ...g }) => (metrics.size === 1 ? { ...g, metric: [...metrics][0] } : { key: g.key, cents: g.cents }))
    .sort((a, b) => b.cents - a.cents || compareCodeUnits(a.key, b.key));
}

export function sumCents(data: CostDatum[]): number {
  return data.reduce((sum, d) => sum + toCents(d.cost), 0);
}

/** Cents per day and project: day → project → cents. */
export function centsByDayAndProject(data: CostDatum[]): Map<string, Map<string, number>> {
  const days = new Map<string, Map<string, number>>();
  for (const d of data) {
    const day = days.get(d.date) ?? new Map<string, number>();
    day.set(d.project_id, (day.get(d.project_id) ?? 0) + toCents(d.cost));
    days.set(d.date, day);
  }
  return days;
}

/** The product lines (h100) a set of resource types (h100-80gb-sxm-ib.8x) belongs to. */
export function productLinesOf(resourceTypes: string[], productLines: string[]): string[] {
  return productLines.filter((pl) => resourceTypes.some((t) => t === pl || t.startsWith(`${pl}-`) || t.startsWith(`${pl}.`)));
}
