"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
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

/** Bars stacked by series, with tooltip and legend in the page's colours (light or dark). */
export function StackedBarChart({ data, xKey, series, label, formatValue, formatAxis, className }: StackedBarChartProps) {
  return (
    <div className={cn("h-72 w-full", CHART_VARS, className)} role="img" aria-label={label}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid vertical={false} stroke="var(--chart-grid)" />
          <XAxis dataKey={xKey} tick={{ fill: "var(--chart-muted)", fontSize: 11 }} tickLine={false} axisLine={{ stroke: "var(--chart-grid)" }} minTickGap={16} />
          <YAxis
            tick={{ fill: "var(--chart-muted)", fontSize: 11 }}
            tickLine={false}
            axisLine={false}
            width={64}
            tickFormatter={(v: number) => (formatAxis ?? formatValue)(v)}
          />
          <Tooltip
            cursor={{ fill: "var(--chart-grid)", opacity: 0.6 }}
            contentStyle={{
              background: "var(--chart-tooltip-bg)",
              border: "1px solid var(--chart-tooltip-border)",
              borderRadius: 6,
              color: "var(--chart-text)",
              fontSize: 12,
            }}
            labelStyle={{ color: "var(--chart-text)", fontWeight: 600 }}
            itemStyle={{ color: "var(--chart-text)" }}
            formatter={(value, name) => [formatValue(Number(value)), String(name)]}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} formatter={(value) => <span style={{ color: "var(--chart-text)" }}>{String(value)}</span>} />
          {series.map((s) => (
            <Bar key={s.key} dataKey={s.key} name={s.label} stackId="stack" fill={s.color} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
