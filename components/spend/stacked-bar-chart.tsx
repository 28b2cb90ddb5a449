"use client";

import { lazyComponent } from "@/components/common/lazy";
import { cn } from "@/lib/utils";
import { ChartFacade } from "./chart-facade";
import { CHART_VARS } from "./chart-theme";
import { StaticStackedBars } from "./static-chart";

export interface ChartSeries {
  key: string;
  label: string;
  color: string;
}

export interface StackedBarChartProps {
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

// recharts (tooltip, keyboard navigation) is fetched when the person points at or focuses the chart.
const LiveStackedBars = lazyComponent(() => import("./stacked-bar-chart-live").then((m) => m.LiveStackedBars));

/**
 * Bars stacked by series, with legend in the page's colours (light or dark): drawn static
 * (static-chart.tsx), then with tooltips once the person reaches for it (chart-facade.tsx).
 */
export function StackedBarChart({ label, className, ...chart }: StackedBarChartProps) {
  return (
    <ChartFacade
      label={label}
      className={cn("h-72 w-full", CHART_VARS, className)}
      still={<StaticStackedBars data={chart.data} xKey={chart.xKey} series={chart.series} formatAxis={chart.formatAxis ?? chart.formatValue} />}
      live={(size) => <LiveStackedBars {...chart} size={size} />}
    />
  );
}
