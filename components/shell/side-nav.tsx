"use client";

import { useLinkStatus } from "next/link";
import { IntentLink } from "@/components/common/intent-link";
import { usePathname } from "next/navigation";
import type * as React from "react";

export interface SideNavSection {
  title?: string;
  /** Absolute hrefs; icons arrive rendered (by the server), so no icon code ships for them. */
  items: Array<{ href: string; label: string; icon: React.ReactNode }>;
}

/**
 * Pages render on the server before they show (no loading skeleton flashes in between, and
 * the first load paints the page whole): until the next page arrives, the link clicked says so.
 */
function PendingMark() {
  const { pending } = useLinkStatus();
  return pending ? (
    <span role="status" className="ml-auto size-3 shrink-0 animate-spin rounded-full border-2 border-slate-300 border-t-brand-600 motion-reduce:animate-none">
      <span className="sr-only">Loading</span>
    </span>
  ) : null;
}

/** The console's areas; only the most specific item under the current page is active (GPU tracking, not also Reservations). */
export function SideNav({ sections, base, onSamePage }: { sections: SideNavSection[]; base: string; onSamePage?: () => void }) {
  const pathname = usePathname() ?? "";
  const activeHref = sections
    .flatMap((s) => s.items.map((i) => i.href))
    .filter((href) => pathname === href || (href !== base && pathname.startsWith(`${href}/`)))
    .sort((a, b) => b.length - a.length)[0];
  return (
    <nav aria-label="Console" className="flex flex-col gap-5 p-3">
      {sections.map((section, i) => (
        <div key={section.title ?? i}>
          {section.title ? <p className="px-2 pb-1 text-xs font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400">{section.title}</p> : null}
          <ul className="space-y-0.5">
            {section.items.map((item) => {
              const active = item.href === activeHref;
              return (
                <li key={item.href}>
                  <IntentLink
                    href={item.href}
                    onClick={pathname === item.href ? onSamePage : undefined}
                    aria-current={active ? "page" : undefined}
                    className="nav-link"
                  >
                    {item.icon}
                    {item.label}
                    <PendingMark />
                  </IntentLink>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
    </nav>
  );
}
