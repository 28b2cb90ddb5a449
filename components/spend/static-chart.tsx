"use client";

/**
 * Static charts: the stacked bars and the lines that recharts draws on the usage, billing and GPU
 * tracking pages, as plain SVG from a few small components (scales in plain math), in the same
 * colours, size and layout. chart-facade.tsx shows them until the person points at or focuses a
 * chart, and only then loads recharts and swaps it in (tooltips, keyboard navigation).
 *
 * Budget: the "console pages" row of bench/results.md (Lighthouse, Total Blocking Time ≤ 200 ms).
 * Evaluating recharts' code (≈ 380 KB) and its first drawing are each a long task on a phone, and
 * together they kept the usage and GPU tracking pages over that budget.
 */
import { useLayoutEffect, useRef, useState } from "react";

export interface StaticSeries {
  key: string;
  label: string;
  color: string;
  /** Lines only: a dash pattern, a stroke width, and a step after each point instead of a slope. */
  dash?: string;
  strokeWidth?: number;
  step?: boolean;
}

type Datum = Readonly<Record<string, string | number>>;

const FONT_SIZE = 11;
/** An estimate of a tick label's width at FONT_SIZE, to thin the labels that would overlap. */
const labelWidth = (text: string) => text.length * FONT_SIZE * 0.62;
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** The box's size in pixels, measured before the browser paints and again on every resize. */
function useSize() {
  const ref = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => {
      const { width, height } = element.getBoundingClientRect();
      setSize((s) => (s.width === width && s.height === height ? s : { width, height }));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, size] as const;
}

/** `count` ticks from 0 in round steps up to at least `max`, as recharts picks them for an axis from 0. */
export function niceTicks(max: number, count = 5, integers = false): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / (count - 1);
  // The rough step rounded up to a multiple of 5 % of its power of ten (10 % for a one-digit step).
  const digits = Math.floor(Math.log10(raw)) + 1;
  const scale = digits === 1 ? 0.1 : 0.05;
  let step = Math.ceil(Number((raw / 10 ** digits / scale).toPrecision(12))) * scale * 10 ** digits;
  if (integers) step = Math.max(1, Math.ceil(step - 1e-9));
  return Array.from({ length: count }, (_, i) => Number((i * step).toPrecision(12)));
}

/** The indexes of the labels to show, `spacing` px apart, so that they do not overlap; the last one always (recharts' preserveEnd). */
export function thinnedLabels(labels: string[], spacing: number, gap: number): number[] {
  const widest = Math.max(0, ...labels.map(labelWidth)) + gap;
  const every = Math.max(1, Math.ceil(widest / Math.max(spacing, 1)));
  return labels.map((_, i) => i).filter((i) => (labels.length - 1 - i) % every === 0);
}

const HOUR = 3_600_000;
const TIME_STEPS = [HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR, 48 * HOUR, 7 * 24 * HOUR, 14 * 24 * HOUR, 30 * 24 * HOUR];

/** Times on whole UTC hours or days between `first` and `last`, at most `most` of them. */
export function timeTicks(first: number, last: number, most: number): number[] {
  if (!(last > first)) return [first];
  const step = TIME_STEPS.find((s) => (last - first) / s <= most) ?? Math.ceil((last - first) / most);
  const ticks: number[] = [];
  for (let t = Math.ceil(first / step) * step; t <= last; t += step) ticks.push(t);
  return ticks;
}

const byLabel = (a: StaticSeries, b: StaticSeries) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0);

/** The legend under a chart, in recharts' order (by name), in HTML: a swatch (a square for bars, a line for lines) and the series' name. */
function ChartLegend({ series, lines }: { series: StaticSeries[]; lines?: boolean }) {
  return (
    <ul className="flex flex-wrap justify-center gap-x-2.5 gap-y-0.5 pt-1 text-xs" style={{ color: "var(--chart-text)" }} data-legend>
      {[...series].sort(byLabel).map((s) => (
        <li key={s.key} className="inline-flex items-center gap-1">
          <svg width={14} height={14} aria-hidden>
            {lines ? (
              <line x1={0} x2={14} y1={7} y2={7} stroke={s.color} strokeWidth={s.strokeWidth ?? 2} strokeDasharray={s.dash ? "4 2" : undefined} />
            ) : (
              <rect width={14} height={14} fill={s.color} />
            )}
          </svg>
          {s.label}
        </li>
      ))}
    </ul>
  );
}

interface Plot {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Horizontal gridlines and the y axis' labels at the ticks; `y` maps a value to its pixel row. */
function YGrid({ plot, ticks, y, format, stroke, opacity, axisLine }: { plot: Plot; ticks: number[]; y: (v: number) => number; format: (v: number) => string; stroke: string; opacity?: number; axisLine?: boolean }) {
  return (
    <g fontSize={FONT_SIZE}>
      {ticks.map((t) => (
        <g key={t}>
          <line x1={plot.left} x2={plot.right} y1={y(t)} y2={y(t)} stroke={stroke} strokeOpacity={opacity} />
          {axisLine ? <line x1={plot.left - 6} x2={plot.left} y1={y(t)} y2={y(t)} stroke="currentColor" /> : null}
          <text x={plot.left - (axisLine ? 8 : 4)} y={y(t)} dy="0.355em" textAnchor="end" fill="currentColor">
            {format(t)}
          </text>
        </g>
      ))}
      {axisLine ? <line x1={plot.left} x2={plot.left} y1={plot.top} y2={plot.bottom} stroke="currentColor" /> : null}
    </g>
  );
}

/**
 * Bars stacked by series, one per datum, as StackedBarChart draws them with recharts: y axis 64 px
 * wide with round ticks and gridlines, x labels thinned to fit, the legend underneath.
 */
export function StaticStackedBars({ data, xKey, series, formatAxis }: { data: Datum[]; xKey: string; series: StaticSeries[]; formatAxis: (value: number) => string }) {
  const [ref, { width, height }] = useSize();
  const plot: Plot = { left: 64, right: width - 8, top: 8, bottom: height - 30 };
  const totals = data.map((d) => series.reduce((n, s) => n + Math.max(0, num(d[s.key])), 0));
  const ticks = niceTicks(Math.max(0, ...totals));
  const top = ticks[ticks.length - 1] ?? 1;
  const y = (v: number) => plot.bottom - (v / top) * (plot.bottom - plot.top);
  const band = (plot.right - plot.left) / Math.max(1, data.length);
  const labels = data.map((d) => String(d[xKey] ?? ""));
  return (
    <div className="flex h-full w-full flex-col" data-static-chart="bars">
      <div ref={ref} className="min-h-0 flex-1" style={{ color: "var(--chart-muted)" }}>
        {width > 0 && height > 0 ? (
          <svg width={width} height={height} aria-hidden>
            <YGrid plot={plot} ticks={ticks} y={y} format={formatAxis} stroke="var(--chart-grid)" />
            {data.map((d, i) => {
              let base = 0;
              return (
                <g key={labels[i]}>
                  {series.map((s) => {
                    const v = Math.max(0, num(d[s.key]));
                    if (!v) return null;
                    const rect = <rect key={s.key} x={plot.left + i * band + band * 0.1} width={band * 0.8} y={y(base + v)} height={y(base) - y(base + v)} fill={s.color} />;
                    base += v;
                    return rect;
                  })}
                </g>
              );
            })}
            <g fontSize={FONT_SIZE}>
              {thinnedLabels(labels, band, 16).map((i) => (
                <text key={i} x={plot.left + (i + 0.5) * band} y={plot.bottom + 8} dy="0.71em" textAnchor="middle" fill="currentColor">
                  {labels[i]}
                </text>
              ))}
            </g>
          </svg>
        ) : null}
      </div>
      <ChartLegend series={series} />
    </div>
  );
}

/**
 * Lines over time (x: `xKey` in epoch milliseconds), as the GPU tracking charts draw them with
 * recharts: y axis 36 px wide with whole-number ticks, time ticks on whole hours or days, the legend underneath.
 */
export function StaticLines({ data, xKey, series, formatTime }: { data: Datum[]; xKey: string; series: StaticSeries[]; formatTime: (t: number) => string }) {
  const [ref, { width, height }] = useSize();
  const plot: Plot = { left: 36, right: width - 12, top: 8, bottom: height - 30 };
  const times = data.map((d) => num(d[xKey]));
  const first = times[0] ?? 0;
  const last = times[times.length - 1] ?? 0;
  const ticks = niceTicks(Math.max(0, ...data.flatMap((d) => series.map((s) => num(d[s.key])))), 5, true);
  const top = ticks[ticks.length - 1] ?? 1;
  const x = (t: number) => (last > first ? plot.left + ((t - first) / (last - first)) * (plot.right - plot.left) : (plot.left + plot.right) / 2);
  const y = (v: number) => plot.bottom - (v / top) * (plot.bottom - plot.top);
  const most = Math.max(1, Math.floor((plot.right - plot.left) / (labelWidth(formatTime(first)) + 12)));
  const points = (s: StaticSeries) =>
    data
      .flatMap((d, i) => {
        const here = `${x(times[i] ?? 0)},${y(num(d[s.key]))}`;
        const previous = data[i - 1];
        return s.step && previous ? [`${x(times[i] ?? 0)},${y(num(previous[s.key]))}`, here] : [here];
      })
      .join(" ");
  return (
    <div className="flex h-full w-full flex-col" data-static-chart="lines">
      <div ref={ref} className="min-h-0 flex-1">
        {width > 0 && height > 0 ? (
          <svg width={width} height={height} aria-hidden>
            <YGrid plot={plot} ticks={ticks} y={y} format={String} stroke="currentColor" opacity={0.15} axisLine />
            <line x1={plot.left} x2={plot.right} y1={plot.bottom} y2={plot.bottom} stroke="currentColor" />
            <g fontSize={FONT_SIZE}>
              {timeTicks(first, last, most).map((t) => (
                <g key={t}>
                  <line x1={x(t)} x2={x(t)} y1={plot.bottom} y2={plot.bottom + 6} stroke="currentColor" />
                  <text x={x(t)} y={plot.bottom + 8} dy="0.71em" textAnchor="middle" fill="currentColor">
                    {formatTime(t)}
                  </text>
                </g>
              ))}
            </g>
            {series.map((s) => (
              <polyline key={s.key} points={points(s)} fill="none" stroke={s.color} strokeWidth={s.strokeWidth ?? 2} strokeDasharray={s.dash} strokeLinejoin="round" />
            ))}
          </svg>
        ) : null}
      </div>
      <ChartLegend series={series} lines />
    </div>
  );
}
