import type { BillingCostData, DayRange } from "@/lib/query/billing";
import { toCents } from "./money";
import { compareCodeUnits } from "@/lib/compare";

export type CostDatum = BillingCostData["data"][number];

export interface CostFilters {
  projects: string[];
  resource_types: string[];
  regions: string[];
}

/** Keeps the rows every non-empty filter lists (an empty filter keeps all). */
function filterCosts(data: CostDatum[], f: CostFilters): CostDatum[] {
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
function totalsBy(data: CostDatum[], field: "project_id" | "resource_type" | "region"): Total[] {
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

/** Cents per day and project: day → project → cents. */
function centsByDayAndProject(data: CostDatum[]): Map<string, Map<string, number>> {
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

/** What the billing page shows of a period's cost rows for its filters: a few kilobytes where the rows are about a megabyte a month. */
export interface CostSummary {
  /** The range the costs were asked for: its days are the page's rows, whatever the URL says now. */
  range: DayRange;
  /** When the gateway last recorded costs. */
  lastUpdated: string;
  /** The values of each filterable field in the period's rows, before the filters, sorted. */
  values: Record<"project_id" | "resource_type" | "region", string[]>;
  /** The rows the filters keep. */
  rows: number;
  totalCents: number;
  /** Per project and per product line, largest first. */
  byProject: Total[];
  byProduct: Total[];
  /** Each day with spend, in order: cents per project, in `byProject`'s order. */
  days: Array<{ date: string; cents: number[] }>;
}

export function summarizeCosts(answer: BillingCostData, filters: CostFilters, range: DayRange): CostSummary {
  const values = (field: keyof CostSummary["values"]) => [...new Set(answer.data.map((d) => d[field]))].sort(compareCodeUnits);
  const data = filterCosts(answer.data, filters);
  const byProject = totalsBy(data, "project_id");
  const byDay = centsByDayAndProject(data);
  return {
    range: { start_date: range.start_date, end_date: range.end_date },
    lastUpdated: answer.last_updated,
    values: { project_id: values("project_id"), resource_type: values("resource_type"), region: values("region") },
    rows: data.length,
    totalCents: byProject.reduce((sum, t) => sum + t.cents, 0),
    byProject,
    byProduct: totalsBy(data, "resource_type"),
    days: [...byDay.keys()].sort(compareCodeUnits).map((date) => ({ date, cents: byProject.map((p) => byDay.get(date)?.get(p.key) ?? 0) })),
  };
}
