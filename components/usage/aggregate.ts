import type { UsageInterval, UsageItem, UsageReport } from "@/lib/query/usage";
import { compareCodeUnits } from "@/lib/compare";

/** The metrics in the data, the GPU-hours first (what most readers come for). */
function metricsOf(items: UsageItem[]): string[] {
  return [...new Set(items.map((i) => i.billable_metric))].sort((a, b) => (a === "gpu-hours" ? -1 : b === "gpu-hours" ? 1 : compareCodeUnits(a, b)));
}

export interface PeriodRow {
  period: string;
  total: number;
  /** Quantity per resource type (a plain object: the summary is sent with the page as JSON). */
  byType: Record<string, number>;
}

/** A period's quantity of a resource type; 0 when it has none. */
export const quantityOf = (row: PeriodRow, type: string): number => (Object.hasOwn(row.byType, type) ? row.byType[type]! : 0);

/** One metric's quantities per period and resource type: the periods in order, the types by quantity, largest first. */
export interface MetricPeriods {
  rows: PeriodRow[];
  types: string[];
}

/** Quantity of one metric per period and resource type, periods in order. */
function byPeriodAndType(items: UsageItem[], metric: string): MetricPeriods {
  const periods = new Map<string, { total: number; byType: Map<string, number> }>();
  const typeTotals = new Map<string, number>();
  for (const i of items) {
    if (i.billable_metric !== metric) continue;
    let row = periods.get(i.date);
    if (!row) periods.set(i.date, (row = { total: 0, byType: new Map() }));
    row.byType.set(i.resource_type, (row.byType.get(i.resource_type) ?? 0) + i.quantity);
    row.total += i.quantity;
    typeTotals.set(i.resource_type, (typeTotals.get(i.resource_type) ?? 0) + i.quantity);
  }
  const types = [...typeTotals.entries()].sort((a, b) => b[1] - a[1]).map(([t]) => t);
  const rows = [...periods.entries()]
    .sort(([a], [b]) => compareCodeUnits(a, b))
    // fromEntries defines each type as an own property, whatever its name ("__proto__" included).
    .map(([period, row]) => ({ period, total: row.total, byType: Object.fromEntries(row.byType) }));
  return { rows, types };
}

export interface ProjectTypeTotal {
  id: string;
  project_id: string;
  resource_type: string;
  metric: string;
  quantity: number;
  reserved: number;
}

/** Quantity per project and resource type over the whole range, with the share used under a reservation. */
function byProjectAndType(items: UsageItem[]): ProjectTypeTotal[] {
  const totals = new Map<string, ProjectTypeTotal>();
  for (const i of items) {
    const id = `${i.project_id}|${i.resource_type}|${i.billable_metric}`;
    const t = totals.get(id) ?? { id, project_id: i.project_id, resource_type: i.resource_type, metric: i.billable_metric, quantity: 0, reserved: 0 };
    t.quantity += i.quantity;
    if (i.reservation_id) t.reserved += i.quantity;
    totals.set(id, t);
  }
  return [...totals.values()].sort((a, b) => compareCodeUnits(a.project_id, b.project_id) || b.quantity - a.quantity);
}

/**
 * What the usage page shows of a report: each metric's quantities per period and resource type, and
 * the totals per project and resource type. A month of daily usage is over a megabyte of rows, this
 * a few kilobytes: it is what the page's query caches, and what the server sends with the page.
 */
export interface UsageSummary {
  /** The interval the report was asked for: its periods are days or months, whatever the URL says now. */
  interval: UsageInterval;
  /** The metrics in the data, the GPU-hours first. */
  metrics: string[];
  periods: Record<string, MetricPeriods>;
  totals: ProjectTypeTotal[];
}

/**
 * A period as the page names it: the day ("2026-10-15"), or the month ("2026-10") of a monthly report,
 * whose periods the gateway dates by their first day even where the range starts later in the month.
 */
export function periodLabel(period: string, interval: UsageInterval): string {
  return interval === "monthly" ? period.slice(0, 7) : period;
}

export function summarizeUsage(report: UsageReport, interval: UsageInterval): UsageSummary {
  const metrics = metricsOf(report.items);
  return {
    interval,
    metrics,
    periods: Object.fromEntries(metrics.map((m) => [m, byPeriodAndType(report.items, m)])),
    totals: byProjectAndType(report.items),
  };
}
