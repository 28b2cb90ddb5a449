"use client";

import { startTransition, Suspense, useEffect, useRef, useState, type ReactNode } from "react";
import { cn } from "@/lib/utils";

export interface ChartSize {
  width: number;
  height: number;
}

/**
 * A chart shown as a static drawing (static-chart.tsx) until the person reaches for it: when the
 * pointer enters it or it gets keyboard focus, the interactive chart (recharts: tooltips, keyboard
 * navigation) is fetched and swapped in, in the same box and at the same size, and keyboard focus
 * moves into it. The drawing stays until the interactive chart is ready (the swap is a transition).
 *
 * Budget: the "console pages" row of bench/results.md (Lighthouse, Total Blocking Time ≤ 200 ms):
 * recharts' code is neither evaluated nor drawn while a page loads.
 */
export function ChartFacade({
  label,
  className,
  still,
  live,
}: {
  /** The chart's text alternative (the box is role="img"). */
  label: string;
  className?: string;
  /** The static drawing. */
  still: ReactNode;
  /** The interactive chart (a lazy component: its code is fetched when it first renders), drawn at the box's size. */
  live: (size: ChartSize) => ReactNode;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState<ChartSize | null>(null);
  const focusWanted = useRef(false);

  const activate = (focus: boolean) => {
    const element = ref.current;
    if (size || !element) return;
    focusWanted.current = focus;
    const { width, height } = element.getBoundingClientRect();
    startTransition(() => setSize({ width, height }));
  };

  // Focused by the keyboard: once the interactive chart is in, its own focusable surface takes the focus.
  useEffect(() => {
    const element = ref.current;
    if (!size || !element || !focusWanted.current) return;
    const handOver = () => {
      const target = element.querySelector<HTMLElement | SVGElement>('[tabindex]:not([tabindex="-1"])');
      if (!target) return false;
      focusWanted.current = false;
      if (document.activeElement === element) target.focus();
      return true;
    };
    if (handOver()) return;
    const observer = new MutationObserver(() => {
      if (handOver()) observer.disconnect();
    });
    observer.observe(element, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [size]);

  return (
    <div
      ref={ref}
      role="img"
      aria-label={label}
      // Focusable while static; the interactive chart has a focusable surface of its own.
      tabIndex={size ? -1 : 0}
      data-chart={size ? "interactive" : "static"}
      className={cn("rounded-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500", className)}
      onPointerEnter={() => activate(false)}
      onFocus={(event) => {
        if (event.target === event.currentTarget) activate(true);
      }}
    >
      <Suspense fallback={still}>{size ? live(size) : still}</Suspense>
    </div>
  );
}
