"use client";

import { useState } from "react";
import { ChartLegend, ChartTooltip, labelEvery, niceTicks, TooltipRow, useWidth } from "@/components/charts/chart-kit";
import { cn } from "@/lib/utils";
import { CHART_VARS } from "./chart-theme";

export interface ChartSeries {
  key: string;
  label: string;
  color: string;
}

interface StackedBarChartProps {
  /** One object per bar: the x value under `xKey`, then one number per series key. */
  data: Array<Record<string, string | number>>;
  xKey: string;
  series: ChartSeries[];
  /** The chart's text alternative; the table beside it holds the same numbers. */
  label: string;
  formatValue: (value: number) => string;
  formatAxis?: (value: number) => string;
  className?: string;
}

const HEIGHT = 256;
const M = { top: 8, right: 8, bottom: 24, left: 64 };

const valueOf = (row: Record<string, string | number>, key: string) => {
  const v = row[key];
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
};

/** Bars stacked by series, with tooltip and legend in the page's colours (light or dark); plain SVG. */
export function StackedBarChart({ data, xKey, series, label, formatValue, formatAxis, className }: StackedBarChartProps) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const [hover, setHover] = useState<{ index: number; x: number; y: number } | null>(null);
  const totals = data.map((row) => series.reduce((n, s) => n + Math.max(0, valueOf(row, s.key)), 0));
  const ticks = niceTicks(Math.max(0, ...totals));
  const top = ticks[ticks.length - 1] || 1;
  const plotW = Math.max(0, width - M.left - M.right);
  const plotH = HEIGHT - M.top - M.bottom;
  const band = data.length ? plotW / data.length : 0;
  const barW = Math.max(1, band * 0.8);
  const y = (v: number) => M.top + plotH - (v / top) * plotH;
  const every = labelEvery(data.length, plotW, 64);
  const axis = formatAxis ?? formatValue;
  const hovered = hover ? data[hover.index] : undefined;
  return (
    <div className={cn("h-72 w-full", CHART_VARS, className)} role="img" aria-label={label}>
      <div ref={ref} className="relative" onMouseLeave={() => setHover(null)}>
        {width > 0 ? (
          <svg
            width={width}
            height={HEIGHT}
            aria-hidden
            onMouseMove={(e) => {
              const box = e.currentTarget.getBoundingClientRect();
              const px = e.clientX - box.left;
              const index = Math.floor((px - M.left) / (band || 1));
              setHover(index >= 0 && index < data.length ? { index, x: px, y: e.clientY - box.top } : null);
            }}
          >
            {ticks.map((t) => (
              <g key={t}>
                <line x1={M.left} x2={M.left + plotW} y1={y(t)} y2={y(t)} stroke="var(--chart-grid)" />
                <text x={M.left - 6} y={y(t)} dy="0.32em" textAnchor="end" fontSize={11} fill="var(--chart-muted)">
                  {axis(t)}
                </text>
              </g>
            ))}
            {hover ? <rect x={M.left + hover.index * band} y={M.top} width={band} height={plotH} fill="var(--chart-grid)" opacity={0.6} /> : null}
            {data.map((row, i) => {
              let base = 0;
              const x = M.left + i * band + (band - barW) / 2;
              return (
                <g key={String(row[xKey])}>
                  {series.map((s) => {
                    const v = Math.max(0, valueOf(row, s.key));
                    if (v === 0) return null;
                    const y0 = y(base);
                    base += v;
                    return <rect key={s.key} className="chart-bar" x={x} y={y(base)} width={barW} height={Math.max(0, y0 - y(base))} fill={s.color} />;
                  })}
                </g>
              );
            })}
            <line x1={M.left} x2={M.left + plotW} y1={M.top + plotH} y2={M.top + plotH} stroke="var(--chart-grid)" />
            {data.map((row, i) =>
              i % every === 0 ? (
                <text key={String(row[xKey])} x={M.left + i * band + band / 2} y={HEIGHT - 6} textAnchor="middle" fontSize={11} fill="var(--chart-muted)">
                  {String(row[xKey])}
                </text>
              ) : null,
            )}
          </svg>
        ) : (
          <div style={{ height: HEIGHT }} />
        )}
        {hover && hovered ? (
          <ChartTooltip x={hover.x} y={hover.y} width={width}>
            <p className="mb-1 font-semibold">{String(hovered[xKey])}</p>
            <ul className="space-y-0.5">
              {series.map((s) => (
                <TooltipRow key={s.key} color={s.color} label={s.label} value={formatValue(valueOf(hovered, s.key))} />
              ))}
            </ul>
          </ChartTooltip>
        ) : null}
      </div>
      <ChartLegend items={series.map((s) => ({ label: s.label, color: s.color }))} />
    </div>
  );
}
