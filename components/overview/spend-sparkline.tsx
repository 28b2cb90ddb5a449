"use client";

import { useState } from "react";
import { ChartTooltip, useWidth } from "@/components/charts/chart-kit";

const money = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });
const HEIGHT = 96;

/** Daily spend as a small area chart in plain SVG; the day under the pointer in a tooltip. */
export function SpendSparkline({ series }: { series: Array<{ date: string; cost: number }> }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const [hover, setHover] = useState<{ index: number; x: number; y: number } | null>(null);
  const max = Math.max(0, ...series.map((d) => d.cost)) || 1;
  const x = (i: number) => (series.length > 1 ? (i / (series.length - 1)) * width : width / 2);
  const y = (v: number) => 4 + (HEIGHT - 6) * (1 - v / max);
  const line = series.map((d, i) => `${i ? "L" : "M"}${x(i)},${y(d.cost)}`).join("");
  const area = series.length ? `${line}L${x(series.length - 1)},${HEIGHT}L${x(0)},${HEIGHT}Z` : "";
  const hovered = hover ? series[hover.index] : undefined;
  return (
    <div ref={ref} className="relative h-24" role="img" aria-label={`Daily spend over ${series.length} days`} onMouseLeave={() => setHover(null)}>
      {width > 0 ? (
        <svg
          width={width}
          height={HEIGHT}
          aria-hidden
          onMouseMove={(e) => {
            const box = e.currentTarget.getBoundingClientRect();
            const px = e.clientX - box.left;
            const index = series.length > 1 ? Math.round((px / (width || 1)) * (series.length - 1)) : 0;
            setHover(series[index] ? { index, x: px, y: e.clientY - box.top } : null);
          }}
        >
          <path d={area} fill="var(--color-brand-500)" fillOpacity={0.15} />
          <path d={line} fill="none" stroke="var(--color-brand-500)" strokeWidth={2} />
          {hover && hovered ? <circle cx={x(hover.index)} cy={y(hovered.cost)} r={3} fill="var(--color-brand-500)" /> : null}
        </svg>
      ) : null}
      {hover && hovered ? (
        <ChartTooltip x={hover.x} y={hover.y} width={width}>
          <p className="font-medium">{hovered.date}</p>
          <p className="tabular-nums">Spend: {money.format(hovered.cost)}</p>
        </ChartTooltip>
      ) : null}
    </div>
  );
}
