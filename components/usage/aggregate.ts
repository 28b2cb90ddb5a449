import type { UsageItem } from "@/lib/query/usage";
import { compareCodeUnits } from "@/lib/compare";

/** The metrics in the data, the GPU-hours first (what most readers come for). */
export function metricsOf(items: UsageItem[]): string[] {
  return [...new Set(items.map((i) => i.billable_metric))].sort((a, b) => (a === "gpu-hours" ? -1 : b === "gpu-hours" ? 1 : compareCodeUnits(a, b)));
}

export interface PeriodRow {
  period: string;
  total: number;
  /** Quantity per resource type. */
  byType: Map<string, number>;
}

/** Quantity of one metric per period and resource type, periods in order. */
export function byPeriodAndType(items: UsageItem[], metric: string): { rows: PeriodRow[]; types: string[] } {
  const periods = new Map<string, PeriodRow>();
  const typeTotals = new Map<string, number>();
  for (const i of items) {
    if (i.billable_metric !== metric) continue;
    const row = periods.get(i.date) ?? { period: i.date, total: 0, byType: new Map<string, number>() };
    row.byType.set(i.resource_type, (row.byType.get(i.resource_type) ?? 0) + i.quantity);
    row.total += i.quantity;
    periods.set(i.date, row);
    typeTotals.set(i.resource_type, (typeTotals.get(i.resource_type) ?? 0) + i.quantity);
  }
  const types = [...typeTotals.entries()].sort((a, b) => b[1] - a[1]).map(([t]) => t);
  return { rows: [...periods.values()].sort((a, b) => compareCodeUnits(a.period, b.period)), types };
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
export function byProjectAndType(items: UsageItem[]): ProjectTypeTotal[] {
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
