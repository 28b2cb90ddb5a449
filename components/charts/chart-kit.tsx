"use client";

import { useLayoutEffect, useRef, useState, type ReactNode } from "react";

/**
 * The few pieces the console's charts need, in plain SVG: a measured width, nice
 * axis ticks, a legend and a tooltip box. A charting library would weigh about
 * 100 KB gzipped in every page that draws one chart.
 */

/** The element's width in CSS pixels, kept current as it resizes; 0 until measured. */
export function useWidth<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setWidth(el.clientWidth);
    const observer = new ResizeObserver(() => setWidth(el.clientWidth));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width] as const;
}

/** About `count` round tick values from 0 (or min) to at least max: 1, 2 or 5 times a power of ten apart. */
export function niceTicks(max: number, count = 5, min = 0, integers = false): number[] {
  const span = max - min;
  if (!(span > 0)) return [min, min + 1];
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  if (integers) step = Math.max(1, Math.ceil(step));
  const start = Math.floor(min / step) * step;
  const ticks: number[] = [];
  for (let v = start; v < max + step; v += step) {
    ticks.push(Number(v.toPrecision(12)));
    if (v >= max) break;
  }
  return ticks;
}

/** Indexes of the labels to show so that labels about `labelWidth` wide do not overlap on `width` pixels. */
export function labelEvery(count: number, width: number, labelWidth: number): number {
  if (count <= 0 || width <= 0) return 1;
  return Math.max(1, Math.ceil((count * labelWidth) / width));
}

export interface LegendItem {
  label: string;
  color: string;
  dashed?: boolean;
}

export function ChartLegend({ items }: { items: LegendItem[] }) {
  return (
    <ul className="chart-legend mt-2 flex flex-wrap justify-center gap-x-4 gap-y-1 text-xs text-[var(--chart-text,currentColor)]" aria-hidden>
      {items.map((item) => (
        <li key={item.label} className="flex items-center gap-1.5">
          <svg width="14" height="8" aria-hidden>
            <line x1="0" y1="4" x2="14" y2="4" stroke={item.color} strokeWidth="3" strokeDasharray={item.dashed ? "4 2" : undefined} />
          </svg>
          {item.label}
        </li>
      ))}
    </ul>
  );
}

/** A box that follows the pointer inside the chart, flipped to stay within it. */
export function ChartTooltip({ x, y, width, children }: { x: number; y: number; width: number; children: ReactNode }) {
  const flip = x > width / 2;
  return (
    <div
      className="chart-tooltip pointer-events-none absolute z-10 min-w-32 rounded-md border border-slate-200 bg-white px-3 py-2 text-xs text-slate-900 shadow-md dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
      style={{ top: Math.max(0, y - 12), left: flip ? undefined : x + 12, right: flip ? width - x + 12 : undefined }}
    >
      {children}
    </div>
  );
}

export function TooltipRow({ color, label, value }: { color: string; label: string; value: string }) {
  return (
    <li className="flex items-center gap-2">
      <span aria-hidden className="inline-block size-2 shrink-0 rounded-full" style={{ backgroundColor: color }} />
      <span>{label}</span>
      <span className="ml-auto pl-3 font-medium tabular-nums">{value}</span>
    </li>
  );
}
