"use client";

import { seriesColor } from "@/components/spend/chart-theme";
import { DeferredStackedBarChart } from "@/components/spend/deferred-chart";
import { eachDay } from "@/components/spend/date-range";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/states";
import { formatNumber } from "@/lib/format";
import { formatDateTime } from "@/lib/utc-date";
import type { CostSummary, Total } from "./aggregate";
import { formatCents, formatCentsShort } from "./money";

type DayRow = { date: string; total: number } & Record<string, number | string>;

/** The range's spend: a chart and a table of each day by project, and the totals per project and product line. */
export function SpendSections({ summary, label }: { summary: CostSummary; label: (id: string) => string }) {
  // The range is the summary's own: while a new one loads, the totals on screen are still the old range's.
  const { range, byProject, byProduct, totalCents: total, lastUpdated } = summary;
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
          <DeferredStackedBarChart
            data={chartData}
            xKey="date"
            series={series}
            label={`Daily spend by project from ${range.start_date} to ${range.end_date}; the table below lists the same amounts`}
            formatValue={(v) => formatCents(Math.round(v * 100))}
            formatAxis={(v) => formatCentsShort(Math.round(v * 100))}
          />
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
