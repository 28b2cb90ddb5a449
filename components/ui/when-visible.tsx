"use client";

import { startTransition, useEffect, useRef, useState } from "react";
import type * as React from "react";

/**
 * Renders `children` once the placeholder comes near the viewport, and from then on. For heavy
 * widgets below the fold (charts: recharts' code and its drawing cost hundreds of milliseconds
 * of a phone's main thread): a visit that never scrolls to them never pays for them. The children
 * mount in a transition: React renders them in slices between which the browser stays responsive,
 * instead of in one long task.
 */
export function WhenVisible({ children, placeholder, rootMargin = "200px" }: { children: React.ReactNode; placeholder: React.ReactNode; rootMargin?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (shown || !element) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          startTransition(() => setShown(true));
          observer.disconnect();
        }
      },
      { rootMargin },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [shown, rootMargin]);
  return shown ? children : <div ref={ref}>{placeholder}</div>;
}
