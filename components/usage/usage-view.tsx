"use client";

import { useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useQueryStates } from "nuqs";
import { useMemo } from "react";
import { projectLabeler } from "@/components/spend/project-labels";
import { seriesColor } from "@/components/spend/chart-theme";
import { resolveRange } from "@/components/spend/date-range";
import { RangePicker } from "@/components/spend/range-picker";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { MultiSelect } from "@/components/ui/multi-select";
import { WidgetSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { projectQueries } from "@/lib/query/projects";
import { usageQueries, type UsageFilters, type UsageItem } from "@/lib/query/usage";
import { byPeriodAndType, byProjectAndType, metricsOf, type PeriodRow, type ProjectTypeTotal } from "./aggregate";
import { UsageExportButton } from "./export-button";
import { USAGE_INTERVALS, usageFilters, usageSearchParams } from "./search-params";
import { WhenVisible } from "@/components/ui/when-visible";
import { compareNames, formatCompact, formatNumber } from "@/lib/format";

const StackedBarChart = dynamic(() => import("@/components/spend/stacked-bar-chart").then((m) => m.StackedBarChart), {
  ssr: false,
  loading: () => <div className="h-72" aria-hidden />,
});

const quantity = (n: number) => formatNumber(n, { maximumFractionDigits: 2 });
const compact = (n: number) => formatCompact(n, { maximumFractionDigits: 1 });

/** The usage page: quantities per period over a range, by resource type, with filters and an export. */
export function UsageView({ orgId, today }: { orgId: string; today: string }) {
  const [state, setState] = useQueryStates(usageSearchParams, { history: "push" });
  const now = useMemo(() => new Date(`${today}T12:00:00Z`), [today]);
  const resolved = resolveRange(state.range, state.from, state.to, now);
  const filters = usageFilters(state, now);

  const projects = useQuery(projectQueries.list());
  const label = projectLabeler(projects.data, orgId);
  const options = useQuery(usageQueries.options(orgId));
  const report = useQuery({
    ...usageQueries.report(orgId, filters ?? { projects: [], resource_types: [], regions: [], start_date: "", end_date: "", interval: "daily" }),
    enabled: filters !== null,
  });

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
              onPreset={(preset) => void setState({ range: preset, from: null, to: null })}
              onCustom={(from, to) => void setState({ range: "custom", from, to })}
            />
            <div role="group" aria-label="Interval" className="flex gap-1">
              {USAGE_INTERVALS.map((i) => (
                <Button key={i} type="button" size="sm" variant={state.interval === i ? "primary" : "secondary"} aria-pressed={state.interval === i} onClick={() => void setState({ interval: i })}>
                  {i === "daily" ? "Daily" : "Monthly"}
                </Button>
              ))}
            </div>
          </div>
          <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
            <MultiSelect
              label="Projects"
              emptyLabel="All projects"
              options={(options.data?.projects ?? []).map((id) => ({ value: id, label: label(id) })).sort((a, b) => compareNames(a.label, b.label))}
              value={state.projects}
              onChange={(v) => void setState({ projects: v })}
            />
            <MultiSelect
              label="Resource types"
              emptyLabel="All resource types"
              options={(options.data?.resource_types ?? []).map((v) => ({ value: v }))}
              value={state.resource_types}
              onChange={(v) => void setState({ resource_types: v })}
            />
            <MultiSelect
              label="Regions"
              emptyLabel="All regions"
              options={(options.data?.regions ?? []).map((v) => ({ value: v }))}
              value={state.regions}
              onChange={(v) => void setState({ regions: v })}
            />
            <div className="flex items-end">
              <UsageExportButton orgId={orgId} options={options.data} projectLabel={label} defaults={filters} />
            </div>
          </div>
          {options.isError ? <p className="text-sm text-amber-700 dark:text-amber-400">The filter values could not be loaded; the usage below is unfiltered by them.</p> : null}
          {options.data?.start_date ? (
            <p className="text-xs text-slate-500 dark:text-slate-400">
              Usage is recorded from {options.data.start_date} to {options.data.end_date} (UTC days).
            </p>
          ) : null}
        </CardBody>
      </Card>

      {filters === null ? null : report.isPending ? (
        <Card>
          <WidgetSkeleton label="usage" lines={6} />
        </Card>
      ) : report.isError ? (
        <Card>
          <ErrorState error={report.error} what="usage" onRetry={() => void report.refetch()} />
        </Card>
      ) : report.data.items.length === 0 ? (
        <Card>
          <EmptyState title="No usage in this period">Choose a longer range, or clear the filters.</EmptyState>
        </Card>
      ) : (
        <UsageSections items={report.data.items} metric={state.metric} onMetric={(m) => void setState({ metric: m })} interval={state.interval} label={label} />
      )}
    </div>
  );
}

function UsageSections({
  items,
  metric: chosen,
  onMetric,
  interval,
  label,
}: {
  items: UsageItem[];
  metric: string | null;
  onMetric: (metric: string) => void;
  interval: UsageFilters["interval"];
  label: (id: string) => string;
}) {
  const metrics = metricsOf(items);
  const metric = chosen && metrics.includes(chosen) ? chosen : (metrics[0] ?? "");
  const { rows, types } = byPeriodAndType(items, metric);
  const series = types.map((t, i) => ({ key: `t${i}`, type: t, label: t, color: seriesColor(i) }));
  const chartData = rows.map((r) => Object.fromEntries([["period", r.period], ...series.map((s) => [s.key, r.byType.get(s.type) ?? 0])]));
  const periodName = interval === "monthly" ? "Month" : "Date";

  const periodColumns: ColumnDef<PeriodRow, unknown>[] = [
    { id: "period", accessorFn: (r) => (interval === "monthly" ? r.period.slice(0, 7) : r.period), header: periodName },
    ...series.map(
      (s): ColumnDef<PeriodRow, unknown> => ({
        id: s.key,
        accessorFn: (r) => r.byType.get(s.type) ?? 0,
        header: s.label,
        cell: (c) => <span className="tabular-nums">{quantity(Number(c.getValue()))}</span>,
      }),
    ),
    { id: "total", accessorFn: (r) => r.total, header: `Total (${metric})`, cell: (c) => <span className="font-medium tabular-nums">{quantity(Number(c.getValue()))}</span> },
  ];
  const totalColumns: ColumnDef<ProjectTypeTotal, unknown>[] = [
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

  return (
    <>
      <Card>
        <CardHeader title={`Usage per ${interval === "monthly" ? "month" : "day"} by resource type`} description={`Quantities in ${metric}`} />
        <CardBody className="space-y-4">
          {metrics.length > 1 ? (
            <div role="group" aria-label="Metric" className="flex flex-wrap gap-1">
              {metrics.map((m) => (
                <Button key={m} type="button" size="sm" variant={m === metric ? "primary" : "secondary"} aria-pressed={m === metric} onClick={() => onMetric(m)}>
                  {m}
                </Button>
              ))}
            </div>
          ) : null}
          <WhenVisible placeholder={<div className="h-72" aria-hidden />}>
            <StackedBarChart
              data={chartData}
              xKey="period"
              series={series}
              label={`${metric} per ${interval === "monthly" ? "month" : "day"} by resource type; the table below lists the same quantities`}
              formatValue={(v) => `${quantity(v)} ${metric}`}
              formatAxis={(v) => compact(v)}
            />
          </WhenVisible>
          <DataTable className="max-h-96 overflow-y-auto" label="Usage by period" columns={periodColumns} data={rows} getRowId={(r) => r.period} />
        </CardBody>
      </Card>
      <Card>
        <CardHeader title="Totals per project and resource type" description="Every metric over the whole range" />
        <CardBody>
          <DataTable label="Usage per project and resource type" columns={totalColumns} data={byProjectAndType(items)} getRowId={(r) => r.id} />
        </CardBody>
      </Card>
    </>
  );
}
