"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type * as React from "react";
import { cn } from "@/lib/utils";

export interface SideNavSection {
  title?: string;
  /** Absolute hrefs; icons arrive rendered (by the server), so no icon code ships for them. */
  items: Array<{ href: string; label: string; icon: React.ReactNode }>;
}

/** The console's areas; only the most specific item under the current page is active (GPU tracking, not also Reservations). */
export function SideNav({ sections, base, onNavigate }: { sections: SideNavSection[]; base: string; onNavigate?: () => void }) {
  const pathname = usePathname() ?? "";
  const activeHref = sections
    .flatMap((s) => s.items.map((i) => i.href))
    .filter((href) => pathname === href || (href !== base && pathname.startsWith(`${href}/`)))
    .sort((a, b) => b.length - a.length)[0];
  return (
    <nav aria-label="Console" className="flex flex-col gap-5 p-3">
      {sections.map((section, i) => (
        <div key={section.title ?? i}>
          {section.title ? <p className="px-2 pb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">{section.title}</p> : null}
          <ul className="space-y-0.5">
            {section.items.map((item) => {
              const active = item.href === activeHref;
              return (
                <li key={item.href}>
                  <Link
                    href={item.href}
                    onClick={onNavigate}
                    aria-current={active ? "page" : undefined}
                    className={cn(
                      "flex items-center gap-2 rounded-md px-2 py-1.5 text-sm text-slate-700 hover:bg-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 dark:text-slate-300 dark:hover:bg-slate-800",
                      active && "bg-slate-100 font-medium text-slate-900 dark:bg-slate-800 dark:text-white",
                    )}
                  >
                    {item.icon}
                    {item.label}
                  </Link>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
    </nav>
  );
}
