"use client";

import { Cloud, Menu, X } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState } from "react";
import type * as React from "react";
import { Button } from "@/components/ui/button";
import { cn } from "@/lib/utils";
import { Breadcrumbs } from "./breadcrumbs";
import { visibleNav, type NavItem } from "./nav";
import { OrgSwitcher, type OrgSummary } from "./org-switcher";
import { ThemeToggle } from "./theme-toggle";
import { UserMenu } from "./user-menu";

interface ShellProps {
  orgs: OrgSummary[];
  orgId: string;
  email: string;
  flags: Record<string, unknown>;
  children: React.ReactNode;
}

function SideNav({ orgId, flags, onNavigate }: { orgId: string; flags: Record<string, unknown>; onNavigate?: () => void }) {
  const pathname = usePathname() ?? "";
  const base = `/orgs/${orgId}`;
  const sections = visibleNav(flags);
  const hrefOf = (item: NavItem) => (item.href.startsWith("/") ? item.href : item.href ? `${base}/${item.href}` : base);
  // Only the most specific item under the current page is active (GPU tracking, not also Reservations).
  const activeHref = sections
    .flatMap((s) => s.items.map(hrefOf))
    .filter((href) => pathname === href || (href !== base && pathname.startsWith(`${href}/`)))
    .sort((a, b) => b.length - a.length)[0];
  return (
    <nav aria-label="Console" className="flex flex-col gap-5 p-3">
      {sections.map((section, i) => (
        <div key={section.title ?? i}>
          {section.title ? <p className="px-2 pb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">{section.title}</p> : null}
          <ul className="space-y-0.5">
            {section.items.map((item) => {
              const href = hrefOf(item);
              const active = href === activeHref;
              return (
                <li key={item.href}>
                  <Link
                    href={href}
                    onClick={onNavigate}
                    aria-current={active ? "page" : undefined}
                    className={cn(
                      "flex items-center gap-2 rounded-md px-2 py-1.5 text-sm text-slate-700 hover:bg-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 dark:text-slate-300 dark:hover:bg-slate-800",
                      active && "bg-slate-100 font-medium text-slate-900 dark:bg-slate-800 dark:text-white",
                    )}
                  >
                    <item.icon className="size-4 shrink-0" aria-hidden />
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

/** Sidebar by area, top bar with breadcrumbs, organization switcher, theme and account; a drawer on phones. */
export function Shell({ orgs, orgId, email, flags, children }: ShellProps) {
  const [open, setOpen] = useState(false);
  const current = orgs.find((o) => o.id === orgId);
  return (
    <div className="flex min-h-screen">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2">
        Skip to content
      </a>
      <aside className="hidden w-60 shrink-0 border-r border-slate-200 bg-slate-50 md:block dark:border-slate-800 dark:bg-slate-900/50">
        <Link href={`/orgs/${orgId}`} className="flex h-14 items-center gap-2 border-b border-slate-200 px-4 font-semibold dark:border-slate-800">
          <Cloud className="size-5 text-brand-600" aria-hidden /> Stratus
        </Link>
        <SideNav orgId={orgId} flags={flags} />
      </aside>
      {open ? (
        <div className="fixed inset-0 z-40 md:hidden" role="dialog" aria-modal="true" aria-label="Navigation">
          <button className="absolute inset-0 bg-black/40" aria-label="Close navigation" onClick={() => setOpen(false)} />
          <div className="absolute inset-y-0 left-0 w-64 overflow-y-auto bg-white shadow-xl dark:bg-slate-900">
            <div className="flex h-14 items-center justify-between border-b border-slate-200 px-4 dark:border-slate-800">
              <span className="flex items-center gap-2 font-semibold">
                <Cloud className="size-5 text-brand-600" aria-hidden /> Stratus
              </span>
              <Button variant="ghost" size="icon" aria-label="Close navigation" onClick={() => setOpen(false)}>
                <X />
              </Button>
            </div>
            <SideNav orgId={orgId} flags={flags} onNavigate={() => setOpen(false)} />
          </div>
        </div>
      ) : null}
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="sticky top-0 z-30 flex h-14 items-center gap-3 border-b border-slate-200 bg-white/90 px-3 backdrop-blur sm:px-4 dark:border-slate-800 dark:bg-slate-950/90">
          <Button variant="ghost" size="icon" className="md:hidden" aria-label="Open navigation" onClick={() => setOpen(true)}>
            <Menu />
          </Button>
          <OrgSwitcher orgs={orgs} currentId={orgId} />
          <div className="hidden min-w-0 flex-1 sm:block">
            <Breadcrumbs orgId={orgId} orgName={current?.name ?? "Organization"} />
          </div>
          <div className="ml-auto flex items-center gap-1">
            <ThemeToggle />
            <UserMenu email={email} />
          </div>
        </header>
        <main id="main" className="mx-auto w-full max-w-7xl flex-1 p-4 sm:p-6">
          {children}
        </main>
      </div>
    </div>
  );
}
