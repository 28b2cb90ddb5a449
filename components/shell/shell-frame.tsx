"use client";

import { IntentLink } from "@/components/common/intent-link";
import { usePathname } from "next/navigation";
import { useState } from "react";
import type * as React from "react";
import { Button } from "@/components/ui/button";
import { Breadcrumbs } from "./breadcrumbs";
import { NavDrawer } from "./nav-drawer";
import type { OrgSummary } from "./org-switcher";
import { OrgSwitcher } from "./org-switcher";
import { SideNav, type SideNavSection } from "./side-nav";
import { ThemeToggle } from "./theme-toggle";
import { UserMenu } from "./user-menu";

interface ShellFrameProps {
  orgs: OrgSummary[];
  orgId: string;
  email: string;
  /** The navigation, built by the server (shell.tsx): the caller's visible areas, icons rendered. */
  sections: SideNavSection[];
  /** Breadcrumb labels by path below /orgs/[orgId]. */
  labels: Record<string, string>;
  /** The frame's icons, rendered by the server (shell.tsx). */
  icons: ShellIcons;
  children: React.ReactNode;
}

export interface ShellIcons {
  brand: React.ReactNode;
  openNav: React.ReactNode;
  closeNav: React.ReactNode;
  /** Between breadcrumbs. */
  crumb: React.ReactNode;
  org: React.ReactNode;
  orgMenu: React.ReactNode;
  account: React.ReactNode;
  theme: Record<"light" | "dark" | "system", React.ReactNode>;
}

/** Sidebar by area, top bar with breadcrumbs, organization switcher, theme and account; a drawer on phones. */
export function ShellFrame({ orgs, orgId, email, sections, labels, icons, children }: ShellFrameProps) {
  // The phone drawer stays open on the page it was opened on: a link's pending mark shows in it
  // until the next page arrives, and the drawer is gone with the page it belonged to.
  const pathname = usePathname();
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn !== null && openOn === pathname;
  const setOpen = (next: boolean) => setOpenOn(next ? pathname : null);
  const current = orgs.find((o) => o.id === orgId);
  return (
    <div className="flex min-h-screen">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2">
        Skip to content
      </a>
      <aside className="hidden w-60 shrink-0 border-r border-slate-200 bg-slate-50 md:block dark:border-slate-800 dark:bg-slate-900/50">
        <IntentLink href={`/orgs/${orgId}`} className="flex h-14 items-center gap-2 border-b border-slate-200 px-4 font-semibold dark:border-slate-800">
          {icons.brand} Stratus
        </IntentLink>
        <SideNav sections={sections} base={`/orgs/${orgId}`} />
      </aside>
      <NavDrawer open={open} onClose={() => setOpen(false)} label="Navigation">
        <div className="flex h-14 items-center justify-between border-b border-slate-200 px-4 dark:border-slate-800">
          <span className="flex items-center gap-2 font-semibold">
            {icons.brand} Stratus
          </span>
          <Button variant="ghost" size="icon" aria-label="Close navigation" onClick={() => setOpen(false)}>
            {icons.closeNav}
          </Button>
        </div>
        <SideNav sections={sections} base={`/orgs/${orgId}`} onSamePage={() => setOpen(false)} />
      </NavDrawer>
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="sticky top-0 z-30 flex h-14 items-center gap-3 border-b border-slate-200 bg-white/90 px-3 backdrop-blur sm:px-4 dark:border-slate-800 dark:bg-slate-950/90">
          <Button variant="ghost" size="icon" className="md:hidden" aria-label="Open navigation" onClick={() => setOpen(true)}>
            {icons.openNav}
          </Button>
          <OrgSwitcher orgs={orgs} currentId={orgId} icon={icons.org} menuIcon={icons.orgMenu} />
          <div className="hidden min-w-0 flex-1 sm:block">
            <Breadcrumbs orgId={orgId} orgName={current?.name ?? "Organization"} labels={labels} separator={icons.crumb} />
          </div>
          <div className="ml-auto flex items-center gap-1">
            <ThemeToggle icons={icons.theme} />
            <UserMenu email={email} icon={icons.account} />
          </div>
        </header>
        <main id="main" className="mx-auto w-full max-w-7xl flex-1 p-4 sm:p-6">
          {children}
        </main>
      </div>
    </div>
  );
}
