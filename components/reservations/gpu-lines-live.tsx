"use client";

import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis, type TooltipContentProps } from "recharts";
import type { ChartSize } from "@/components/spend/chart-facade";
import { GPU_LINES, type Point } from "./gpu-charts";
import { utcDateTime } from "./format";

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

/**
 * The interactive GPU tracking chart (recharts: tooltip, keyboard navigation), which the chart
 * swaps in for its static drawing when the person reaches for it. Drawn at `size` at once.
 */
export function LiveGpuLines({ points, tick, size }: { points: Point[]; tick: (t: number) => string; size: ChartSize }) {
  return (
    <ResponsiveContainer width="100%" height="100%" initialDimension={size}>
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
        <Legend wrapperStyle={{ fontSize: 12 }} formatter={(value) => <span style={{ color: "var(--chart-text)" }}>{String(value)}</span>} />
        {GPU_LINES.map((s) => (
          <Line
            key={s.key}
            type={s.step ? "stepAfter" : "monotone"}
            dataKey={s.key}
            name={s.label}
            stroke={s.color}
            strokeDasharray={s.dash}
            strokeWidth={s.strokeWidth}
            dot={false}
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    </ResponsiveContainer>
  );
}
