"use client";

import { useQuery, type UseQueryResult } from "@tanstack/react-query";
import { formatMonth } from "@/lib/dates";
import { useQueryStates } from "nuqs";
import { Suspense, useMemo } from "react";
import { lazyComponent } from "@/components/common/lazy";
import type * as React from "react";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { WidgetSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { billingQueries, type BillingOptions, type DayRange } from "@/lib/query/billing";
import { projectQueries } from "@/lib/query/projects";
import { productLinesOf, type CostSummary, type Total } from "./aggregate";
import { costSummaryQuery } from "./queries";
import { projectLabeler } from "@/components/spend/project-labels";
import { seriesColor } from "@/components/spend/chart-theme";
import { eachDay, monthEndForecastCents, resolveRange } from "@/components/spend/date-range";
import { BillingExportButton } from "./export-button";
import { formatCents, formatCentsShort } from "./money";
import { RangePicker } from "@/components/spend/range-picker";
import { FilterSelects } from "@/components/spend/filter-selects";
import { billingSearchParams } from "./search-params";
import { WhenVisible } from "@/components/ui/when-visible";
import { QueryState, useDeferredQuery, type QueryLike } from "@/components/ui/query-state";
import { compareNames } from "@/lib/compare";
import { formatDateTime } from "@/lib/utc-date";
import { formatNumber } from "@/lib/format";
import { cn } from "@/lib/utils";

// The chart is loaded only in the browser, once near the viewport (WhenVisible mounts it only there);
// it draws static SVG, and fetches recharts only when the person points at or focuses it
// (components/spend/chart-facade.tsx). React.lazy rather than next/dynamic, whose loader code would
// ride in the page's first load.
const StackedBarChart = lazyComponent(() => import("@/components/spend/stacked-bar-chart").then((m) => m.StackedBarChart));


/** The billing page: spend by day and project over a range, totals, forecast and export. */
export function BillingView({ orgId, today }: { orgId: string; today: string }) {
  const [state, setState] = useBillingSearch();
  // "Today" comes from the server's render, so the browser reads the very keys the server prefetched.
  const now = useMemo(() => new Date(`${today}T12:00:00Z`), [today]);
  const resolved = resolveRange(state.range, state.from, state.to, now);
  const range = resolved.ok ? resolved.range : null;
  const mtd = resolveRange("mtd", null, null, now);
  const filters = { projects: state.projects, resource_types: state.resource_types, regions: state.regions };

  const projects = useQuery(projectQueries.list());
  const options = useQuery({ ...billingQueries.options(orgId, range ?? mtdRange(mtd)), enabled: range !== null });
  const label = projectLabeler(projects.data, orgId, options.data?.project_names);
  // Summaries of the cost rows for the filters (the server sends the page's; the browser computes the
  // next from the rows, fetched once). When the range is the month to date, both are the same query.
  const costs = useQuery({ ...costSummaryQuery(orgId, range ?? mtdRange(mtd), filters), enabled: range !== null });
  const monthToDate = useQuery(costSummaryQuery(orgId, mtdRange(mtd), filters));
  // A new summary's rendering is deferred: React renders it in slices between which the browser stays
  // responsive, instead of in one task when the data lands.
  const period = useDeferredQuery(costs);
  const month = useDeferredQuery(monthToDate);
  // The previous filters' numbers stand in while the new ones are computed from rows being fetched: said, and dimmed.
  const updating = costs.isPlaceholderData || monthToDate.isPlaceholderData;

  // Filter values: what the options list, plus anything in the costs (reserved usage is not in the options).
  const values = (fromOptions: string[] | undefined, field: keyof CostSummary["values"]) =>
    [...new Set([...(fromOptions ?? []), ...(period.data?.values[field] ?? [])])].sort();

  return (
    <div className="space-y-6">
      <BillingFilters
        orgId={orgId}
        search={state}
        setSearch={setState}
        resolved={resolved}
        options={options}
        values={values}
        label={label}
        updating={updating}
      />

      <div className={cn("space-y-6 transition-opacity", updating && "opacity-60")} aria-busy={updating} data-testid="spend">
        <SpendSummary period={period} month={month} now={now} rangeValid={range !== null} />

        {range === null ? null : period.isError ? (
          <Card>
            <ErrorState error={period.error} what="billing" onRetry={() => void period.refetch()} />
          </Card>
        ) : period.data === undefined ? (
          <Card>
            <WidgetSkeleton label="spend" lines={6} />
          </Card>
        ) : (
          <SpendSections summary={period.data} range={range} label={label} />
        )}
      </div>
    </div>
  );
}

type BillingSearch = ReturnType<typeof useBillingSearch>[0];
const useBillingSearch = () => useQueryStates(billingSearchParams, { history: "push" });

/** The range, the filters (kept in the URL) and the export. */
function BillingFilters({
  orgId,
  search: state,
  setSearch: setState,
  resolved,
  options,
  values,
  label,
  updating,
}: {
  orgId: string;
  search: BillingSearch;
  setSearch: ReturnType<typeof useBillingSearch>[1];
  resolved: ReturnType<typeof resolveRange>;
  options: UseQueryResult<BillingOptions>;
  values: (fromOptions: string[] | undefined, field: keyof CostSummary["values"]) => string[];
  label: (id: string) => string;
  /** The numbers below are the previous filters' until the new ones are computed. */
  updating: boolean;
}) {
  const range = resolved.ok ? resolved.range : null;
  return (
    <Card>
      <CardBody className="space-y-4">
        <RangePicker
          key={`${state.range}:${state.from}:${state.to}`}
          preset={state.range}
          current={range}
          error={resolved.ok ? undefined : resolved.error}
          onPreset={(preset) => void setState({ range: preset, from: null, to: null })}
          onCustom={(from, to) => void setState({ range: "custom", from, to })}
        />
        <FilterSelects
          value={state}
          onChange={(change) => void setState(change)}
          projects={byLabel(values(options.data?.projects, "project_id").map((id) => ({ value: id, label: label(id) })))}
          resourceTypes={values(options.data?.resource_types, "resource_type").map((v) => ({ value: v }))}
          regions={values(options.data?.regions, "region").map((v) => ({ value: v }))}
          resourceTypesLabel="Product lines"
          action={
            <BillingExportButton
              orgId={orgId}
              options={options.data}
              projectLabel={label}
              defaults={{
                projects: state.projects,
                regions: state.regions,
                product_lines: productLinesOf(state.resource_types, options.data?.product_lines ?? []),
                start_date: range?.start_date ?? "",
                end_date: range?.end_date ?? "",
              }}
            />
          }
        />
        {range ? (
          <p className="text-sm text-slate-600 dark:text-slate-300">
            Showing <span className="font-medium">{range.start_date}</span> to <span className="font-medium">{range.end_date}</span> (UTC days)
            {options.isError ? <span className="text-amber-700 dark:text-amber-400"> · filter values could not be loaded</span> : null}
            {/* Always present, so that a screen reader announces its change. */}
            <span role="status">{updating ? " · updating for the new filters…" : ""}</span>
          </p>
        ) : null}
      </CardBody>
    </Card>
  );
}

/** Spend in the period, month to date and the month's forecast. */
function SpendSummary({ period, month, now, rangeValid }: { period: QueryLike<CostSummary>; month: QueryLike<CostSummary>; now: Date; rangeValid: boolean }) {
  return (
    <div className="grid grid-cols-1 gap-4 md:grid-cols-3">
      <SummaryCard title="Spend in period" state={period} disabled={!rangeValid}>
        {(data) => <Big>{formatCents(data.totalCents)}</Big>}
      </SummaryCard>
      <SummaryCard title="Month to date" state={month}>
        {(data) => <Big>{formatCents(data.totalCents)}</Big>}
      </SummaryCard>
      <SummaryCard title={`Forecast for ${formatMonth(now)}`} state={month}>
        {(data) => {
          const f = monthEndForecastCents(data.totalCents, now);
          return (
            <>
              <Big>{formatCents(f.forecastCents)}</Big>
              <p className="text-xs text-slate-500 dark:text-slate-400">
                Month-to-date run rate over {f.daysElapsed} of {f.daysInMonth} days
              </p>
            </>
          );
        }}
      </SummaryCard>
    </div>
  );
}

/** Options in the order a reader looks for them. */
function byLabel<T extends { label: string }>(options: T[]): T[] {
  return [...options].sort((a, b) => compareNames(a.label, b.label));
}

function mtdRange(mtd: ReturnType<typeof resolveRange>): DayRange {
  return mtd.ok ? mtd.range : { start_date: "", end_date: "" };
}

function Big({ children }: { children: React.ReactNode }) {
  return <p className="text-2xl font-semibold tabular-nums">{children}</p>;
}

function SummaryCard<T>({ title, state, disabled, children }: { title: string; state: QueryLike<T>; disabled?: boolean; children: (data: T) => React.ReactNode }) {
  return (
    <Card>
      <CardHeader title={title} />
      {disabled ? (
        <CardBody>
          <p className="text-sm text-slate-500 dark:text-slate-400">Choose a valid range.</p>
        </CardBody>
      ) : (
        <QueryState state={state} what={title.toLowerCase()} label={title} lines={2}>
          {(data) => <CardBody>{children(data)}</CardBody>}
        </QueryState>
      )}
    </Card>
  );
}

type DayRow = { date: string; total: number } & Record<string, number | string>;

function SpendSections({ summary, range, label }: { summary: CostSummary; range: DayRange; label: (id: string) => string }) {
  const { byProject, byProduct, totalCents: total, lastUpdated } = summary;
  const days = new Map(summary.days.map((d) => [d.date, d.cents]));
  // Series keys p0, p1…: project ids are not safe as chart data keys.
  const series = byProject.map((t, i) => ({ key: `p${i}`, label: label(t.key), color: seriesColor(i) }));
  const rows: DayRow[] = eachDay(range).map((date) => {
    const day = days.get(date);
    const row: DayRow = { date, total: 0 };
    series.forEach((s, i) => {
      const cents = day?.[i] ?? 0;
      row[s.key] = cents;
      row.total += cents;
    });
    return row;
  });
  const chartData = rows.map((r) => Object.fromEntries([["date", r.date], ...series.map((s) => [s.key, Number(r[s.key]) / 100])]));

  if (summary.rows === 0) {
    return (
      <Card>
        <EmptyState title="No spend in this period">Choose a longer range, or clear the filters.</EmptyState>
      </Card>
    );
  }

  const dayColumns: ColumnDef<DayRow, unknown>[] = [
    { accessorKey: "date", header: "Date" },
    ...series.map(
      (s): ColumnDef<DayRow, unknown> => ({
        id: s.key,
        accessorFn: (r) => r[s.key],
        header: s.label,
        cell: (c) => <span className="tabular-nums">{formatCents(Number(c.getValue()))}</span>,
      }),
    ),
    { accessorKey: "total", header: "Total", cell: (c) => <span className="font-medium tabular-nums">{formatCents(Number(c.getValue()))}</span> },
  ];

  return (
    <>
      <Card>
        <CardHeader
          title="Daily spend by project"
          description={lastUpdated ? `Costs recorded up to ${formatDateTime(new Date(lastUpdated).toISOString())}` : undefined}
        />
        <CardBody className="space-y-4">
          <WhenVisible placeholder={<div className="h-72" aria-hidden />}>
            <Suspense fallback={<div className="h-72" aria-hidden />}>
              <StackedBarChart
                data={chartData}
                xKey="date"
                series={series}
                label={`Daily spend by project from ${range.start_date} to ${range.end_date}; the table below lists the same amounts`}
                formatValue={(v) => formatCents(Math.round(v * 100))}
                formatAxis={(v) => formatCentsShort(Math.round(v * 100))}
              />
            </Suspense>
          </WhenVisible>
          <DataTable className="max-h-96 overflow-y-auto" label="Daily spend by project" columns={dayColumns} data={rows} getRowId={(r) => r.date} />
        </CardBody>
      </Card>
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <TotalsCard title="Totals per project" label="Spend per project" rows={byProject} total={total} name={label} />
        <TotalsCard title="Totals per product line" label="Spend per product line" rows={byProduct} total={total} name={(k) => k} showQuantity />
      </div>
    </>
  );
}

function TotalsCard({
  title,
  label,
  rows,
  total,
  name,
  showQuantity,
}: {
  title: string;
  label: string;
  rows: Total[];
  total: number;
  name: (key: string) => string;
  showQuantity?: boolean;
}) {
  const columns: ColumnDef<Total, unknown>[] = [
    { id: "name", accessorFn: (r) => name(r.key), header: label.replace("Spend per ", "").replace(/^\w/, (c) => c.toUpperCase()) },
    ...(showQuantity
      ? [
          {
            id: "quantity",
            accessorFn: (r: Total) => r.quantity ?? 0,
            header: "Usage",
            cell: ({ row }: { row: { original: Total } }) =>
              row.original.metric ? (
                <span className="tabular-nums">
                  {formatNumber(row.original.quantity ?? 0, { maximumFractionDigits: 2 })} {row.original.metric}
                </span>
              ) : (
                "—"
              ),
          } satisfies ColumnDef<Total, unknown>,
        ]
      : []),
    { id: "cents", accessorFn: (r) => r.cents, header: "Spend", cell: (c) => <span className="tabular-nums">{formatCents(Number(c.getValue()))}</span> },
    {
      id: "share",
      accessorFn: (r) => (total ? r.cents / total : 0),
      header: "Share",
      cell: (c) => <span className="tabular-nums">{(Number(c.getValue()) * 100).toFixed(1)} %</span>,
    },
  ];
  return (
    <Card>
      <CardHeader title={title} description={`Total ${formatCents(total)}`} />
      <CardBody>
        <DataTable label={label} columns={columns} data={rows} getRowId={(r) => r.key} />
      </CardBody>
    </Card>
  );
}
