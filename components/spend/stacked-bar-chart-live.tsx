"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { ChartSize } from "./chart-facade";
import type { StackedBarChartProps } from "./stacked-bar-chart";

/**
 * The interactive stacked bars (recharts: tooltip, keyboard navigation), which StackedBarChart swaps
 * in for its static drawing when the person reaches for the chart. Drawn at `size` at once.
 */
export function LiveStackedBars({ data, xKey, series, formatValue, formatAxis, size }: Omit<StackedBarChartProps, "label" | "className"> & { size: ChartSize }) {
  return (
    <ResponsiveContainer width="100%" height="100%" initialDimension={size}>
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
  );
}
