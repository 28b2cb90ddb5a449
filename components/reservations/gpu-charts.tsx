"use client";

import { useState } from "react";
import { ChartLegend, ChartTooltip, niceTicks, TooltipRow, useWidth } from "@/components/charts/chart-kit";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import type { GpuTrackingDatum } from "@/lib/contract/reservations";
import { percent, utcDateTime } from "./format";

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
    .sort((a, b) => a.productLine.localeCompare(b.productLine) || a.region.localeCompare(b.region));
}

// Mid-tone colors that read on white and on slate-900 alike.
const LINES = [
  { key: "usage", label: "GPU usage", color: "var(--color-brand-500)", width: 2 },
  { key: "capacity", label: "Reserved capacity", color: "#f59e0b", width: 2, dashed: true, step: true },
  { key: "onDemand", label: "On demand (over capacity)", color: "#ef4444", width: 1.5 },
] as const;

const HEIGHT = 232;
const M = { top: 8, right: 12, bottom: 24, left: 36 };

/** Usage, capacity and on-demand GPUs over time in plain SVG, with a tooltip at the nearest sample. */
function LinesChart({ points, tick }: { points: Point[]; tick: (t: number) => string }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const [hover, setHover] = useState<{ index: number; x: number; y: number } | null>(null);
  const first = points[0]?.t ?? 0;
  const last = points[points.length - 1]?.t ?? first;
  const ticks = niceTicks(Math.max(0, ...points.flatMap((p) => [p.usage, p.capacity, p.onDemand])), 5, 0, true);
  const top = ticks[ticks.length - 1] || 1;
  const plotW = Math.max(0, width - M.left - M.right);
  const plotH = HEIGHT - M.top - M.bottom;
  const x = (t: number) => M.left + (last > first ? ((t - first) / (last - first)) * plotW : plotW / 2);
  const y = (v: number) => M.top + plotH - (v / top) * plotH;
  const path = (key: "usage" | "capacity" | "onDemand", step: boolean) =>
    points
      .map((p, i) => {
        const prev = points[i - 1];
        if (!prev) return `M${x(p.t)},${y(p[key])}`;
        return step ? `H${x(p.t)}V${y(p[key])}` : `L${x(p.t)},${y(p[key])}`;
      })
      .join("");
  const xTickCount = Math.max(2, Math.min(8, Math.floor(plotW / 72)));
  const xTicks = last > first ? Array.from({ length: xTickCount }, (_, i) => first + ((last - first) * i) / (xTickCount - 1)) : [first];
  const hovered = hover ? points[hover.index] : undefined;
  return (
    <div ref={ref} className="relative" onMouseLeave={() => setHover(null)}>
      {width > 0 ? (
        <svg
          width={width}
          height={HEIGHT}
          aria-hidden
          onMouseMove={(e) => {
            const box = e.currentTarget.getBoundingClientRect();
            const px = e.clientX - box.left;
            const t = first + ((px - M.left) / (plotW || 1)) * (last - first);
            let index = 0;
            for (let i = 1; i < points.length; i++) if (Math.abs(points[i]!.t - t) < Math.abs(points[index]!.t - t)) index = i;
            setHover(points.length ? { index, x: px, y: e.clientY - box.top } : null);
          }}
        >
          {ticks.map((t) => (
            <g key={t}>
              <line x1={M.left} x2={M.left + plotW} y1={y(t)} y2={y(t)} stroke="currentColor" strokeOpacity={0.15} />
              <text x={M.left - 6} y={y(t)} dy="0.32em" textAnchor="end" fontSize={11} fill="currentColor">
                {t}
              </text>
            </g>
          ))}
          <line x1={M.left} x2={M.left + plotW} y1={M.top + plotH} y2={M.top + plotH} stroke="currentColor" />
          {xTicks.map((t, i) => (
            <text key={i} x={x(t)} y={HEIGHT - 6} textAnchor={i === 0 ? "start" : i === xTicks.length - 1 ? "end" : "middle"} fontSize={11} fill="currentColor">
              {tick(t)}
            </text>
          ))}
          {LINES.map((l) => (
            <path
              key={l.key}
              className="chart-line"
              d={path(l.key, "step" in l)}
              fill="none"
              stroke={l.color}
              strokeWidth={l.width}
              strokeDasharray={"dashed" in l ? "5 4" : undefined}
            />
          ))}
          {hovered ? <line x1={x(hovered.t)} x2={x(hovered.t)} y1={M.top} y2={M.top + plotH} stroke="currentColor" strokeOpacity={0.4} /> : null}
        </svg>
      ) : (
        <div style={{ height: HEIGHT }} />
      )}
      {hover && hovered ? (
        <ChartTooltip x={hover.x} y={hover.y} width={width}>
          <p className="mb-1 font-medium">{utcDateTime(new Date(hovered.t).toISOString())}</p>
          <ul className="space-y-0.5">
            {LINES.map((l) => (
              <TooltipRow key={l.key} color={l.color} label={l.label} value={String(hovered[l.key])} />
            ))}
          </ul>
        </ChartTooltip>
      ) : null}
      <ChartLegend items={LINES.map((l) => ({ label: l.label, color: l.color, dashed: "dashed" in l }))} />
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
          <LinesChart points={points} tick={tick} />
        </div>
      </CardBody>
    </Card>
  );
}

/** Usage against reserved capacity over time, one chart per product line and region. */
export function GpuCharts({ data }: { data: GpuTrackingDatum[] }) {
  return (
    <div className="grid gap-4 xl:grid-cols-2">
      {bySeries(data).map((s) => (
        <SeriesChart key={s.key} series={s} />
      ))}
    </div>
  );
}
