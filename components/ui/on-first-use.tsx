"use client";

import { Suspense, useState, type KeyboardEvent, type ReactElement, type ReactNode } from "react";

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
  if (armed) return <Suspense fallback={trigger({})}>{menu}</Suspense>;
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
