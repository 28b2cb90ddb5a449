import { Building2, ChevronRight, ChevronsUpDown, Cloud, Menu, Monitor, Moon, Sun, UserRound, X } from "lucide-react";
import type * as React from "react";
import { NAV, visibleNav, type NavItem } from "./nav";
import type { OrgSummary } from "./org-switcher";
import { ShellFrame, type ShellIcons } from "./shell-frame";
import type { SideNavSection } from "./side-nav";

interface ShellProps {
  orgs: OrgSummary[];
  orgId: string;
  email: string;
  flags: Record<string, unknown>;
  /** The caller's organization-wide permissions: areas they may not open are not listed. */
  permissions: readonly string[];
  children: React.ReactNode;
}

const LABELS = Object.fromEntries(NAV.flatMap((s) => s.items).map((i) => [i.href, i.label]));

/** The frame's own icons, rendered here like the navigation's: the browser gets their markup, not their code. */
const ICONS: ShellIcons = {
  brand: <Cloud className="size-5 text-brand-600" aria-hidden />,
  openNav: <Menu />,
  closeNav: <X />,
  crumb: <ChevronRight className="size-3.5 shrink-0" aria-hidden />,
  org: <Building2 />,
  orgMenu: <ChevronsUpDown className="opacity-60" />,
  account: <UserRound />,
  theme: { light: <Sun />, dark: <Moon />, system: <Monitor /> },
};

/**
 * Sidebar by area, top bar with breadcrumbs, organization switcher, theme and account; a drawer on phones.
 * A server component: it resolves the caller's areas and renders their icons (and the frame's) here, so
 * the browser gets the navigation as data and markup rather than the icon set's code.
 */
export function Shell({ orgs, orgId, email, flags, permissions, children }: ShellProps) {
  const base = `/orgs/${orgId}`;
  const hrefOf = (item: NavItem) => (item.href.startsWith("/") ? item.href : item.href ? `${base}/${item.href}` : base);
  const sections: SideNavSection[] = visibleNav(flags, permissions).map((section) => ({
    title: section.title,
    items: section.items.map((item) => ({ href: hrefOf(item), label: item.label, icon: <item.icon className="size-4 shrink-0" aria-hidden /> })),
  }));
  return (
    <ShellFrame orgs={orgs} orgId={orgId} email={email} sections={sections} labels={LABELS} icons={ICONS}>
      {children}
    </ShellFrame>
  );
}
