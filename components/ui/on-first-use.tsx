"use client";

import { Suspense, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactElement, type ReactNode, type RefObject } from "react";

export interface TriggerHandlers {
  onClick?: () => void;
  onKeyDown?: (e: KeyboardEvent) => void;
  onPointerEnter?: () => void;
  onFocus?: () => void;
}

/**
 * A menu or dialog whose code is fetched on first use, so a page's first load
 * carries only its trigger button. The first click (Enter and Space included) or
 * ArrowDown mounts `menu` (a React.lazy component that renders the same trigger,
 * already open); pointing at or focusing the trigger starts fetching the code early.
 */
export function OnFirstUse({
  trigger,
  menu,
  preload,
}: {
  trigger: (handlers: TriggerHandlers) => ReactElement;
  menu: ReactNode;
  /** Starts fetching the code (and swallows a failure: the render retries). */
  preload: () => void;
}) {
  const [armed, setArmed] = useState(false);
  const frame = useRef<HTMLSpanElement>(null);
  if (armed)
    return (
      <span ref={frame} className="contents">
        <Suspense fallback={trigger({})}>
          <RefocusTrigger frame={frame} />
          {menu}
        </Suspense>
      </span>
    );
  return trigger({
    onClick: () => setArmed(true),
    onKeyDown: (e) => {
      if (e.key === "ArrowDown") {
        e.preventDefault();
        setArmed(true);
      }
    },
    onPointerEnter: preload,
    onFocus: preload,
  });
}

/**
 * The loaded module renders its own trigger in place of the one clicked, which took the focus with
 * it. Before the menu or dialog opens (its focus scope remembers what had the focus, to give it back
 * on closing), the focus goes to the new trigger: closing then returns to the control that opened it.
 */
function RefocusTrigger({ frame }: { frame: RefObject<HTMLSpanElement | null> }) {
  useLayoutEffect(() => {
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    frame.current?.querySelector<HTMLElement>("button, a[href], [tabindex]")?.focus({ preventScroll: true });
  }, [frame]);
  return null;
}
