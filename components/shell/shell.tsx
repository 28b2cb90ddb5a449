import type * as React from "react";
import { NAV, visibleNav, type NavItem } from "./nav";
import type { OrgSummary } from "./org-switcher";
import { ShellFrame } from "./shell-frame";
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

/**
 * Sidebar by area, top bar with breadcrumbs, organization switcher, theme and account; a drawer on phones.
 * A server component: it resolves the caller's areas and renders their icons here, so the browser gets
 * the navigation as data and markup rather than the icon set's code.
 */
export function Shell({ orgs, orgId, email, flags, permissions, children }: ShellProps) {
  const base = `/orgs/${orgId}`;
  const hrefOf = (item: NavItem) => (item.href.startsWith("/") ? item.href : item.href ? `${base}/${item.href}` : base);
  const sections: SideNavSection[] = visibleNav(flags, permissions).map((section) => ({
    title: section.title,
    items: section.items.map((item) => ({ href: hrefOf(item), label: item.label, icon: <item.icon className="size-4 shrink-0" aria-hidden /> })),
  }));
  return (
    <ShellFrame orgs={orgs} orgId={orgId} email={email} sections={sections} labels={LABELS}>
      {children}
    </ShellFrame>
  );
}
