"use client";

import { lazy, Suspense, useEffect, useSyncExternalStore } from "react";

/**
 * Toasts without sonner in a page's first load: the toaster's code is fetched,
 * and the toaster mounted, the first time a toast is shown. A toast waits for the
 * toaster to be mounted, so none is lost.
 */
type Sonner = typeof import("sonner");

let wanted = false;
const listeners = new Set<() => void>();
let markMounted: (sonner: Sonner) => void = () => undefined;
const mounted = new Promise<Sonner>((resolve) => {
  markMounted = resolve;
});

function want(): Promise<Sonner> {
  if (!wanted) {
    wanted = true;
    for (const listener of listeners) listener();
  }
  return mounted;
}

const SonnerToaster = lazy(() => import("sonner").then((m) => ({ default: ToasterWith(m) })));

function ToasterWith(sonner: Sonner) {
  return function Mounted() {
    // Runs after sonner's Toaster has subscribed to new toasts (a child's effects run first).
    useEffect(() => markMounted(sonner), []);
    return <sonner.Toaster richColors closeButton position="bottom-right" />;
  };
}

/** Renders nothing until the first toast. */
export function Toaster() {
  const show = useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => wanted,
    () => false,
  );
  return show ? (
    <Suspense fallback={null}>
      <SonnerToaster />
    </Suspense>
  ) : null;
}

export const toast = {
  success: (message: string) => void want().then((s) => s.toast.success(message)),
  error: (message: string) => void want().then((s) => s.toast.error(message)),
};
