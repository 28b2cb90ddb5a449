"use client";

import { useQuery } from "@tanstack/react-query";
import { useQueryStates } from "nuqs";
import { useMemo } from "react";
import { projectLabeler } from "@/components/spend/project-labels";
import { seriesColor } from "@/components/spend/chart-theme";
import { resolveRange } from "@/components/spend/date-range";
import { RangePicker } from "@/components/spend/range-picker";
import { FilterSelects } from "@/components/spend/filter-selects";
import { QueryState, useDeferredQuery } from "@/components/ui/query-state";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/states";
import { projectQueries } from "@/lib/query/projects";
import { usageQueries, type UsageFilters } from "@/lib/query/usage";
import { periodLabel, quantityOf, type PeriodRow, type ProjectTypeTotal, type UsageSummary } from "./aggregate";
import { usageSummaryQuery } from "./queries";
import { UsageExportButton } from "./export-button";
import { USAGE_INTERVALS, usageFilters, usageRangeLimit, usageSearchParams } from "./search-params";
import { DeferredStackedBarChart } from "@/components/spend/deferred-chart";
import { compareNames } from "@/lib/compare";
import { formatCompact, formatNumber } from "@/lib/format";


const quantity = (n: number) => formatNumber(n, { maximumFractionDigits: 2 });
const compact = (n: number) => formatCompact(n, { maximumFractionDigits: 1 });

const NO_FILTERS: UsageFilters = { projects: [], resource_types: [], regions: [], start_date: "", end_date: "", interval: "daily" };

/** The usage page: quantities per period over a range, by resource type, with filters and an export. */
export function UsageView({ orgId, today }: { orgId: string; today: string }) {
  const [state, setState] = useQueryStates(usageSearchParams, { history: "push" });
  const now = useMemo(() => new Date(`${today}T12:00:00Z`), [today]);
  const limit = usageRangeLimit(state.interval);
  const resolved = resolveRange(state.range, state.from, state.to, now, limit);
  const filters = usageFilters(state, now);

  const projects = useQuery(projectQueries.list());
  const options = useQuery(usageQueries.options(orgId));
  const label = projectLabeler(projects.data, orgId, options.data?.project_names);
  // The summary of the report: the server sends the first with the page (usageSummaryQuery); a
  // range or filter chosen later is fetched and summarized here, and rendered from a deferred value.
  const summary = useDeferredQuery(useQuery({ ...usageSummaryQuery(orgId, filters ?? NO_FILTERS), enabled: filters !== null }));

  return (
    <div className="space-y-6">
      <Card>
        <CardBody className="space-y-4">
          <div className="flex flex-wrap items-start justify-between gap-4">
            <RangePicker
              key={`${state.range}:${state.from}:${state.to}`}
              preset={state.range}
              current={resolved.ok ? resolved.range : null}
              error={resolved.ok ? undefined : resolved.error}
              limit={limit}
              onPreset={(preset) => void setState({ range: preset, from: null, to: null })}
              onCustom={(from, to) => void setState({ range: "custom", from, to })}
            />
            <ToggleGroup label="Interval" values={USAGE_INTERVALS} value={state.interval} name={(i) => (i === "daily" ? "Daily" : "Monthly")} onChange={(i) => void setState({ interval: i })} />
          </div>
          <FilterSelects
            value={state}
            onChange={(change) => void setState(change)}
            projects={(options.data?.projects ?? []).map((id) => ({ value: id, label: label(id) })).sort((a, b) => compareNames(a.label, b.label))}
            resourceTypes={(options.data?.resource_types ?? []).map((v) => ({ value: v }))}
            regions={(options.data?.regions ?? []).map((v) => ({ value: v }))}
            resourceTypesLabel="Resource types"
            action={<UsageExportButton orgId={orgId} options={options.data} projectLabel={label} defaults={filters} />}
          />
          {options.isError ? <p className="text-sm text-amber-700 dark:text-amber-400">The filter values could not be loaded; the usage below is unfiltered by them.</p> : null}
          {options.data?.start_date ? (
            <p className="text-xs text-slate-500 dark:text-slate-400">
              Usage is recorded from {options.data.start_date} to {options.data.end_date} (UTC days).
            </p>
          ) : null}
        </CardBody>
      </Card>
      {filters === null ? null : (
        <QueryState
          state={summary}
          what="usage"
          lines={6}
          frame={(node) => <Card>{node}</Card>}
          isEmpty={(data) => data.metrics.length === 0}
          empty={<EmptyState title="No usage in this period">Choose a longer range, or clear the filters.</EmptyState>}
        >
          {/* The interval is the summary's own: while a new one loads, the rows on screen are still the old interval's. */}
          {(data) => <UsageSections summary={data} metric={state.metric} onMetric={(m) => void setState({ metric: m })} label={label} />}
        </QueryState>
      )}
    </div>
  );
}

/** Buttons of which one is pressed: the interval, the metric. */
function ToggleGroup<T extends string>({ label, values, value, name = (v) => v, onChange }: { label: string; values: readonly T[]; value: T; name?: (value: T) => string; onChange: (value: T) => void }) {
  return (
    <div role="group" aria-label={label} className="flex flex-wrap gap-1">
      {values.map((v) => (
        <Button key={v} type="button" size="sm" variant={v === value ? "primary" : "secondary"} aria-pressed={v === value} onClick={() => onChange(v)}>
          {name(v)}
        </Button>
      ))}
    </div>
  );
}

function UsageSections({
  summary,
  metric: chosen,
  onMetric,
  label,
}: {
  summary: UsageSummary;
  metric: string | null;
  onMetric: (metric: string) => void;
  label: (id: string) => string;
}) {
  const { metrics, totals, interval } = summary;
  const metric = chosen && metrics.includes(chosen) ? chosen : (metrics[0] ?? "");
  const { rows, series, chartData } = useMemo(() => {
    const { rows, types } = summary.periods[metric] ?? { rows: [], types: [] };
    const series = types.map((t, i) => ({ key: `t${i}`, type: t, label: t, color: seriesColor(i) }));
    const chartData = rows.map((r) => Object.fromEntries([["period", periodLabel(r.period, interval)], ...series.map((s) => [s.key, quantityOf(r, s.type)])]));
    return { rows, series, chartData };
  }, [summary, metric, interval]);
  const periodColumns = useMemo(() => periodColumnsOf(series, interval, metric), [series, interval, metric]);
  const totalColumns = totalColumnsOf(label);

  return (
    <>
      <Card>
        <CardHeader title={`Usage per ${interval === "monthly" ? "month" : "day"} by resource type`} description={`Quantities in ${metric}`} />
        <CardBody className="space-y-4">
          {metrics.length > 1 ? <ToggleGroup label="Metric" values={metrics} value={metric} onChange={onMetric} /> : null}
          <DeferredStackedBarChart
            data={chartData}
            xKey="period"
            series={series}
            label={`${metric} per ${interval === "monthly" ? "month" : "day"} by resource type; the table below lists the same quantities`}
            formatValue={(v) => `${quantity(v)} ${metric}`}
            formatAxis={(v) => compact(v)}
          />
          <DataTable className="max-h-96 overflow-y-auto" label="Usage by period" columns={periodColumns} data={rows} getRowId={(r) => r.period} />
        </CardBody>
      </Card>
      <Card>
        <CardHeader title="Totals per project and resource type" description="Every metric over the whole range" />
        <CardBody>
          <DataTable label="Usage per project and resource type" columns={totalColumns} data={totals} getRowId={(r) => r.id} />
        </CardBody>
      </Card>
    </>
  );
}

function periodColumnsOf(series: Array<{ key: string; type: string; label: string }>, interval: UsageFilters["interval"], metric: string): ColumnDef<PeriodRow, unknown>[] {
  const periodName = interval === "monthly" ? "Month" : "Date";
  return [
    { id: "period", accessorFn: (r) => periodLabel(r.period, interval), header: periodName },
    ...series.map(
      (s): ColumnDef<PeriodRow, unknown> => ({
        id: s.key,
        accessorFn: (r) => quantityOf(r, s.type),
        header: s.label,
        cell: (c) => <span className="tabular-nums">{quantity(Number(c.getValue()))}</span>,
      }),
    ),
    { id: "total", accessorFn: (r) => r.total, header: `Total (${metric})`, cell: (c) => <span className="font-medium tabular-nums">{quantity(Number(c.getValue()))}</span> },
  ];
}

function totalColumnsOf(label: (id: string) => string): ColumnDef<ProjectTypeTotal, unknown>[] {
  return [
    { id: "project", accessorFn: (r) => label(r.project_id), header: "Project" },
    { accessorKey: "resource_type", header: "Resource type" },
    { id: "quantity", accessorFn: (r) => r.quantity, header: "Quantity", cell: ({ row }) => <span className="tabular-nums">{quantity(row.original.quantity)} {row.original.metric}</span> },
    {
      id: "reserved",
      accessorFn: (r) => (r.quantity ? r.reserved / r.quantity : 0),
      header: "Under reservation",
      cell: (c) => <span className="tabular-nums">{(Number(c.getValue()) * 100).toFixed(0)} %</span>,
    },
  ];
}
