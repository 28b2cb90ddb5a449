"use client";

// The one module that may import next/link's Link (eslint.config.mjs): every other link is this one.
// eslint-disable-next-line no-restricted-imports
import Link from "next/link";
import { useState } from "react";
import type * as React from "react";

type IntentLinkProps = Omit<React.ComponentProps<typeof Link>, "prefetch">;

/**
 * A link that prefetches its page when the reader reaches for it (the pointer over it, keyboard
 * focus, a touch), not when it scrolls into view: Next.js's hover-triggered prefetch
 * (its prefetching guide).
 *
 * Every page of the console is rendered per request for the session, so a prefetch is a server
 * render. With Next's default, a page view on a desktop screen prefetched every link in view: 28
 * requests for the sidebar's areas (two per area), 37 with the projects table's rows. A page view
 * then cost the console's server 2 to 4 times the CPU (people 730 ms against 170 without them,
 * projects 640 against 170, quotas 480 against 210: medians of 3 views, 2026-11-29), and the answers took
 * 45 and 20 ms of the browser's main thread after the page had loaded. Reached for, a link has its
 * page on its way a moment before the click, and the pages not reached for cost nothing.
 */
export function IntentLink({ onMouseEnter, onFocus, onTouchStart, ...props }: IntentLinkProps) {
  const [reached, setReached] = useState(false);
  return (
    <Link
      {...props}
      // null is Next's default ("auto"): from the moment it is reached for, the link prefetches as any other.
      prefetch={reached ? null : false}
      onMouseEnter={(event) => {
        setReached(true);
        onMouseEnter?.(event);
      }}
      onFocus={(event) => {
        setReached(true);
        onFocus?.(event);
      }}
      onTouchStart={(event) => {
        setReached(true);
        onTouchStart?.(event);
      }}
    />
  );
}
