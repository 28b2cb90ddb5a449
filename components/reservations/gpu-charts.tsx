"use client";

import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis, type TooltipContentProps } from "recharts";
import { useMemo } from "react";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { WhenVisible } from "@/components/ui/when-visible";
import type { GpuTrackingDatum } from "@/lib/contract/reservations";
import { percent, utcDateTime } from "./format";
import { compareCodeUnits } from "@/lib/format";

interface Point {
  t: number;
  usage: number;
  capacity: number;
  onDemand: number;
}

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

function ChartTooltip({ active, payload, label }: TooltipContentProps) {
  if (!active || !payload?.length) return null;
  return (
    <div className="rounded-md border border-slate-200 bg-white px-3 py-2 text-xs shadow-md dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100">
      <p className="mb-1 font-medium">{utcDateTime(new Date(Number(label)).toISOString())}</p>
      <ul className="space-y-0.5">
        {payload.map((p) => (
          <li key={String(p.dataKey)} className="flex items-center gap-2">
            <span aria-hidden className="inline-block size-2 rounded-full" style={{ backgroundColor: p.color }} />
            <span>{p.name}</span>
            <span className="ml-auto pl-3 font-medium tabular-nums">{p.value}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

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
        <div
          role="img"
          aria-label={`GPU usage and reserved capacity of ${series.productLine} in ${series.region}, ${utcDateTime(new Date(first).toISOString())} to ${utcDateTime(new Date(last).toISOString())}: ${summary}`}
          className="h-64 text-slate-500 dark:text-slate-400"
        >
          {/* Each chart is drawn when it comes near the viewport, in its own render: on a phone the
              charts stand one under the other, and recharts' mount of one costs a long task by itself. */}
          <WhenVisible placeholder={<div className="h-64" aria-hidden />}>
            <SeriesLines points={points} tick={tick} />
          </WhenVisible>
        </div>
      </CardBody>
    </Card>
  );
}

function SeriesLines({ points, tick }: { points: Point[]; tick: (t: number) => string }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <LineChart data={points} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
        <CartesianGrid stroke="currentColor" strokeOpacity={0.15} vertical={false} />
        <XAxis
          dataKey="t"
          type="number"
          scale="time"
          domain={["dataMin", "dataMax"]}
          tickFormatter={tick}
          tick={{ fill: "currentColor", fontSize: 11 }}
          stroke="currentColor"
          minTickGap={24}
        />
        <YAxis allowDecimals={false} width={36} tick={{ fill: "currentColor", fontSize: 11 }} stroke="currentColor" />
        <Tooltip content={(props) => <ChartTooltip {...props} />} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        <Line type="monotone" dataKey="usage" name="GPU usage" stroke={COLORS.usage} strokeWidth={2} dot={false} isAnimationActive={false} />
        <Line
          type="stepAfter"
          dataKey="capacity"
          name="Reserved capacity"
          stroke={COLORS.capacity}
          strokeDasharray="5 4"
          strokeWidth={2}
          dot={false}
          isAnimationActive={false}
        />
        <Line type="monotone" dataKey="onDemand" name="On demand (over capacity)" stroke={COLORS.onDemand} strokeWidth={1.5} dot={false} isAnimationActive={false} />
      </LineChart>
    </ResponsiveContainer>
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
