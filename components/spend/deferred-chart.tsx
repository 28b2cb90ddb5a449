"use client";

import { Suspense } from "react";
import { lazyComponent } from "@/components/common/lazy";
import { WhenVisible } from "@/components/ui/when-visible";
import type { StackedBarChartProps } from "./stacked-bar-chart";

// The chart's module is fetched only in the browser, once the chart is near the viewport (WhenVisible
// mounts it only there); it draws static SVG and fetches recharts only when the person points at or
// focuses it (chart-facade.tsx). React.lazy rather than next/dynamic, whose loader code would ride in
// the page's first load.
const StackedBarChart = lazyComponent(() => import("./stacked-bar-chart").then((m) => m.StackedBarChart));

/** A page's stacked bar chart as the billing and usage pages show it: an empty box of its height until it is near the viewport and loaded. */
export function DeferredStackedBarChart(props: StackedBarChartProps) {
  const placeholder = <div className="h-72" aria-hidden />;
  return (
    <WhenVisible placeholder={placeholder}>
      <Suspense fallback={placeholder}>
        <StackedBarChart {...props} />
      </Suspense>
    </WhenVisible>
  );
}
