"use client";

import { useMemo } from "react";
import { lazyComponent } from "@/components/common/lazy";
import { ChartFacade } from "@/components/spend/chart-facade";
import { CHART_VARS } from "@/components/spend/chart-theme";
import { StaticLines, type StaticSeries } from "@/components/spend/static-chart";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import type { GpuTrackingDatum } from "@/lib/contract/reservations";
import { percent, utcDateTime } from "./format";
import { compareCodeUnits } from "@/lib/compare";

// recharts (tooltip, keyboard navigation) is fetched when the person points at or focuses a chart.
const LiveGpuLines = lazyComponent(() => import("./gpu-lines-live").then((m) => m.LiveGpuLines));

export type Point = {
  t: number;
  usage: number;
  capacity: number;
  onDemand: number;
};

interface Series {
  key: string;
  productLine: string;
  region: string;
  points: Point[];
}

/** One series per product line and region, in time order. */
function bySeries(data: GpuTrackingDatum[]): Series[] {
  const map = new Map<string, Series>();
  for (const d of data) {
    const key = `${d.product_line}|${d.region}`;
    const series = map.get(key) ?? { key, productLine: d.product_line, region: d.region, points: [] };
    series.points.push({ t: Date.parse(d.event_time), usage: d.gpu_usage, capacity: d.regional_capacity, onDemand: d.on_demand_count });
    map.set(key, series);
  }
  return [...map.values()]
    .map((s) => ({ ...s, points: s.points.sort((a, b) => a.t - b.t) }))
    .sort((a, b) => compareCodeUnits(a.productLine, b.productLine) || compareCodeUnits(a.region, b.region));
}

// Mid-tone colors that read on white and on slate-900 alike.
const COLORS = { usage: "var(--color-brand-500)", capacity: "#f59e0b", onDemand: "#ef4444" } as const;

/** The three lines of every chart, static or interactive: usage, reserved capacity (a dashed step), GPUs on demand. */
export const GPU_LINES: StaticSeries[] = [
  { key: "usage", label: "GPU usage", color: COLORS.usage, strokeWidth: 2 },
  { key: "capacity", label: "Reserved capacity", color: COLORS.capacity, strokeWidth: 2, dash: "5 4", step: true },
  { key: "onDemand", label: "On demand (over capacity)", color: COLORS.onDemand, strokeWidth: 1.5 },
];

function SeriesChart({ series }: { series: Series }) {
  const { points } = series;
  const first = points[0]?.t ?? 0;
  const last = points[points.length - 1]?.t ?? 0;
  const long = last - first > 2 * 86_400_000;
  const tick = (t: number) => {
    const iso = new Date(t).toISOString();
    return long ? iso.slice(5, 10) : iso.slice(11, 16);
  };
  const peak = points.reduce((m, p) => Math.max(m, p.usage), 0);
  const capacity = points[points.length - 1]?.capacity ?? 0;
  const average = points.length ? points.reduce((n, p) => n + p.usage, 0) / points.length : 0;
  const overage = points.reduce((n, p) => n + (p.onDemand > 0 ? 1 : 0), 0);
  const title = `${series.productLine} · ${series.region}`;
  const summary = `Peak ${peak} of ${capacity} reserved GPUs, average utilization ${percent(average, capacity)}${overage ? `, over capacity in ${overage} samples` : ""}`;
  return (
    <Card>
      <CardHeader title={title} description={summary} />
      <CardBody>
        <ChartFacade
          label={`GPU usage and reserved capacity of ${series.productLine} in ${series.region}, ${utcDateTime(new Date(first).toISOString())} to ${utcDateTime(new Date(last).toISOString())}: ${summary}`}
          className={`h-64 text-slate-500 dark:text-slate-400 ${CHART_VARS}`}
          still={<StaticLines data={points} xKey="t" series={GPU_LINES} formatTime={tick} />}
          live={(size) => <LiveGpuLines points={points} tick={tick} size={size} />}
        />
      </CardBody>
    </Card>
  );
}

/** Usage against reserved capacity over time, one chart per product line and region. */
export function GpuCharts({ data }: { data: GpuTrackingDatum[] }) {
  const series = useMemo(() => bySeries(data), [data]);
  return (
    <div className="grid gap-4 xl:grid-cols-2">
      {series.map((s) => (
        <SeriesChart key={s.key} series={s} />
      ))}
    </div>
  );
}
