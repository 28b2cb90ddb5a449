"use client";

import { useEffect } from "react";

/**
 * While `active` (a secret shown once, not yet said to be saved), leaving the page by reloading it, closing the tab or
 * going to another address asks first: the browser's own "Leave site?" prompt.
 */
export function useLeaveWarning(active: boolean): void {
  useEffect(() => {
    if (!active) return;
    const ask = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers ask only when a return value is set.
      event.returnValue = true;
    };
    window.addEventListener("beforeunload", ask);
    return () => window.removeEventListener("beforeunload", ask);
  }, [active]);
}
